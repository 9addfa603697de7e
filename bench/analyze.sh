#!/usr/bin/env bash
# Analyze and report time and peak memory of infertrace against a bare DuckDB
# query on the same Parquet: the three tiers joined by request_id and per-model
# P50/P90/P95/P99 of client E2E and three components (bench/barejoin).
#
#   bench/analyze.sh [REQUESTS] [RUNS]     default 3000000 requests, 3 runs
#
# Input: `infertrace simulate --seed 5 --requests REQUESTS`, ingested once.
# Each step runs RUNS times; the median is printed with the spread (min–max)
# of the wall time, and the largest peak RSS.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3000000}
RUNS=${2:-3}
W=${BENCH_DIR:-/tmp/infertrace-bench}
mkdir -p "$W"
go build -o "$W/infertrace" ./cmd/infertrace
go build -o "$W/barejoin" ./bench/barejoin

D="$W/analyze-$N"
if [ ! -f "$D/.done" ]; then
  rm -rf "$D"
  "$W/infertrace" simulate --seed 5 --out "$D/sim" --requests "$N" > /dev/null
  "$W/infertrace" ingest --client "$D/sim/client" --gateway "$D/sim/gateway" --server "$D/sim/server" --out "$D/data" > /dev/null 2>&1 || true
  touch "$D/.done"
fi
echo "input: $N simulated requests, $(du -sm "$D/data" | cut -f1) MiB of Parquet, $(nproc) cores"

measure() { # RUNS times: prints "median min max maxrss_kb"
  : > "$W/times"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M' -o "$W/time" "$@" > /dev/null 2> "$W/stderr" || { cat "$W/stderr"; exit 1; }
    cat "$W/time" >> "$W/times"
  done
  sort -n "$W/times" | awk '{s[NR]=$1; if ($2>k) k=$2} END {print s[int((NR+1)/2)], s[1], s[NR], k}'
}
row() { # name median min max kb
  awk -v n="$1" -v m="$2" -v a="$3" -v b="$4" -v k="$5" \
    'BEGIN{printf "| %-28s | %7.2f s | %.2f–%.2f s | %6.0f MiB |\n", n, m, a, b, k/1024}'
}

echo "| what | median | spread | peak RSS |"
echo "|---|---:|---:|---:|"
read -r m a b k < <(measure "$W/barejoin" "$D/data")
row "bare DuckDB join" "$m" "$a" "$b" "$k"
read -r m a b k < <(measure "$W/infertrace" analyze "$D/data")
row "infertrace analyze" "$m" "$a" "$b" "$k"
read -r m a b k < <(measure "$W/infertrace" report "$D/data")
row "infertrace report" "$m" "$a" "$b" "$k"
