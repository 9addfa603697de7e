#!/usr/bin/env bash
# Logs to report: the time and peak memory of infertrace's ingest, analyze
# and report against bench/expert/expert.sql, what an expert writes with
# DuckDB alone in an afternoon for the same job from the same raw logs
# (read_json of each tier, one record per request ID and tier, the tiers
# joined by request ID, the additive split, one Parquet of the requests,
# per model × use case percentiles).
#
#   bench/analyze.sh [REQUESTS] [RUNS]     default 3000000 requests, 3 runs
#
# Input: `infertrace simulate --seed 5 --requests REQUESTS`, ingested once.
# Each step runs RUNS times; the median is printed with the spread (min–max)
# of the wall time, and the largest peak RSS. ANALYZE_FLAGS are passed to
# analyze and report (e.g. "--memory-limit 1500MB"). With BENCH_PARTS=N,
# analyze runs as N jobs one after the other (`analyze --partition I/N`, the
# store planned by day: docs/partitions.md) and report merges their parts;
# the time is the N jobs' together, the peak the largest job's.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-3000000}
RUNS=${2:-3}
W=${BENCH_DIR:-/tmp/infertrace-bench}
mkdir -p "$W"
go build -o "$W/infertrace" ./cmd/infertrace
go build -o "$W/expert" ./bench/expert

D="$W/analyze-$N"
# Above BENCH_BATCH requests (default 10M) the store is built as batches of
# that many with ingest --append, each its own seed, starting a day after the
# one before ended (12 req/s), and each batch's logs are deleted once
# ingested: a store that grows, as a weekly report reads it. Up to BATCH the
# logs are kept in $D/sim for the expert's script and the timed ingest.
BATCH=${BENCH_BATCH:-10000000}
if [ ! -f "$D/.done" ] || { [ "$N" -le "$BATCH" ] && [ ! -d "$D/sim" ]; }; then
  rm -rf "$D"
  left=$N k=0 t0=$(date -u -d 2026-11-30T10:00:00Z +%s)
  while [ "$left" -gt 0 ]; do
    n=$(( left < BATCH ? left : BATCH ))
    start=$(date -u -d "@$(( t0 + k * (BATCH / 12 + 86400) ))" +%Y-%m-%dT%H:%M:%SZ)
    "$W/infertrace" simulate --seed $((5 + k)) --start "$start" --out "$D/sim" --requests "$n" > /dev/null
    app=""; [ "$k" -gt 0 ] && app=--append
    "$W/infertrace" ingest $app --quiet --client "$D/sim/client" --gateway "$D/sim/gateway" --server "$D/sim/server" --out "$D/data" > /dev/null 2>&1 || true
    [ "$N" -gt "$BATCH" ] && rm -rf "$D/sim"
    left=$(( left - n )) k=$(( k + 1 ))
  done
  touch "$D/.done"
fi
echo "input: $N simulated requests, $(du -scLm "$D/data/client" "$D/data/gateway" "$D/data/server" | tail -1 | cut -f1) MiB of tier Parquet, $(nproc) cores"

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
ing=0 ex=""
if [ -d "$D/sim" ]; then
  read -r ex a b k < <(measure "$W/expert" -client "$D/sim/client/*" -gateway "$D/sim/gateway/*" -server "$D/sim/server/*" -out "$W/expert.parquet")
  row "expert's DuckDB script" "$ex" "$a" "$b" "$k"
  read -r ing a b k < <(measure sh -c "rm -rf '$W/ingest-out' && '$W/infertrace' ingest --quiet --client '$D/sim/client' --gateway '$D/sim/gateway' --server '$D/sim/server' --out '$W/ingest-out' || [ \$? = 1 ]")
  row "infertrace ingest" "$ing" "$a" "$b" "$k"
  rm -rf "$W/ingest-out"
fi
if [ -n "${BENCH_PARTS:-}" ]; then
  read -r an a b k < <(measure sh -c "for i in \$(seq 0 $((BENCH_PARTS - 1))); do '$W/infertrace' analyze --quiet ${ANALYZE_FLAGS:-} '$D/data' --partition \$i/$BENCH_PARTS || exit 1; done")
else
  read -r an a b k < <(measure "$W/infertrace" analyze ${ANALYZE_FLAGS:-} "$D/data")
fi
row "infertrace analyze" "$an" "$a" "$b" "$k"
read -r rep a b k < <(measure "$W/infertrace" report ${ANALYZE_FLAGS:-} "$D/data")
row "infertrace report" "$rep" "$a" "$b" "$k"
if [ -n "$ex" ]; then
  awk -v i="$ing" -v a="$an" -v r="$rep" -v e="$ex" \
    'BEGIN{printf "logs to report: ingest + analyze + report = %.1f s = %.2f x the expert script (medians)\n", i + a + r, (i + a + r) / e}'
fi
