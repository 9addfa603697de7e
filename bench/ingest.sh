#!/usr/bin/env bash
# Ingest throughput and peak memory of infertrace against DuckDB's own
# COPY (SELECT … FROM read_json(…)) TO parquet, on the same simulated logs.
#
#   bench/ingest.sh [REQUESTS] [RUNS]     default 3000000 requests (~2.6 GB of JSON lines), 3 runs
#
# Three shapes of input: the simulator's tree (13 files across three tiers),
# the same lines as one file per tier (one large file must still keep every
# core busy), and those files with UUIDv4 request IDs (data not shaped by
# the simulator). Throughput is uncompressed input bytes / wall time; memory is
# peak RSS. The best of RUNS is printed for each.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3000000}
RUNS=${2:-3}
W=${BENCH_DIR:-/tmp/infertrace-bench}
mkdir -p "$W"
go build -o "$W/infertrace" ./cmd/infertrace
go build -o "$W/duckdbcopy" ./bench/duckdbcopy

D="$W/sim-$N"
if [ ! -f "$D/.done" ]; then
  rm -rf "$D"
  "$W/infertrace" simulate --out "$D/tree" --requests "$N" > /dev/null
  gunzip "$D"/tree/server/*.gz
  mkdir -p "$D/one"
  for t in client gateway server; do cat "$D"/tree/$t/*.jsonl > "$D/one/$t.jsonl"; done
  touch "$D/.done"
fi
# The third shape is not the simulator's: the same requests with random
# UUIDv4 request IDs (as most gateways make them), the same ID on every
# tier, so that nothing profits from the simulator's short, ordered IDs.
if [ ! -f "$D/.uuid" ]; then
  mkdir -p "$D/uuid"
  python3 - "$D" <<'PY'
import re, sys, uuid
d = sys.argv[1]
ids = {}
rid = re.compile(r'("request_id":")([^"]*)(")')
def sub(m):
    u = ids.get(m.group(2))
    if u is None:
        u = ids[m.group(2)] = str(uuid.uuid4())
    return m.group(1) + u + m.group(3)
for t in ("client", "gateway", "server"):
    with open(f"{d}/one/{t}.jsonl") as src, open(f"{d}/uuid/{t}.jsonl", "w") as dst:
        for line in src:
            dst.write(rid.sub(sub, line))
PY
  touch "$D/.uuid"
fi
bytes=$(cat "$D"/one/*.jsonl | wc -c)
echo "input: $N requests, $(( bytes / 1000000 )) MB of JSON lines, $(nproc) cores"

best() { # best of RUNS: prints "seconds maxrss_kb"
  local bs="" bk=""
  for _ in $(seq "$RUNS"); do
    rm -rf "$W/out"
    /usr/bin/time -f '%e %M' -o "$W/time" "$@" > /dev/null 2> "$W/stderr" || { cat "$W/stderr"; exit 1; }
    read -r s k < "$W/time"
    if [ -z "$bs" ] || awk "BEGIN{exit !($s < $bs)}"; then bs=$s; bk=$k; fi
  done
  echo "$bs $bk"
}
row() { # name seconds kb
  awk -v n="$1" -v s="$2" -v k="$3" -v b="$bytes" \
    'BEGIN{printf "| %-34s | %6.2f s | %6.0f MB/s | %5.0f MiB |\n", n, s, b/1e6/s, k/1024}'
}

echo "| what | time | throughput | peak RSS |"
echo "|---|---:|---:|---:|"
for shape in tree one uuid; do
  if [ $shape = tree ]; then g="$D/tree"; c="$g/client/*.jsonl"; gw="$g/gateway/*.jsonl"; s="$g/server/*.jsonl"
  else g="$D/$shape"; c="$g/client.jsonl"; gw="$g/gateway.jsonl"; s="$g/server.jsonl"; fi
  read -r secs kb < <(best "$W/infertrace" ingest --client "native:$c" --gateway "native:$gw" --server "native:$s" --out "$W/out")
  row "infertrace ingest ($shape)" "$secs" "$kb"
  read -r secs kb < <(best "$W/duckdbcopy" -out "$W/out" -client "$c" -gateway "$gw" -server "$s")
  row "DuckDB COPY read_json ($shape)" "$secs" "$kb"
done
