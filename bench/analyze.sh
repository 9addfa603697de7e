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
# of the wall time, the largest peak RSS and the median CPU time (user +
# system: on a machine shared with other work, the figure to compare).
# ANALYZE_FLAGS are passed to analyze and report (e.g. "--memory-limit 1500MB"). With BENCH_PARTS=N,
# analyze runs as N jobs one after the other (`analyze --partition I/N`, the
# store planned by day: docs/partitions.md), each after the N jobs of its
# first pass (`--facts`, which writes nothing where the days are apart), and
# report merges their parts; the time is the 2N jobs' together (the plan made
# anew), the peak the largest job's. Each job's own wall time, CPU time and
# peak RSS go to $BENCH_DIR/jobs.tsv (the last run's), where the job that
# made the plan (the first --facts) and the one that wrote the yardsticks
# (the first part) stand out.
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

measure() { # RUNS times: prints "median min max maxrss_kb cpu_median"
  : > "$W/times"
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M %U %S' -o "$W/time" "$@" > /dev/null 2> "$W/stderr" || { cat "$W/stderr" >&2; exit 1; }
    cat "$W/time" >> "$W/times"
  done
  c=$(awk '{print $3 + $4}' "$W/times" | sort -n | awk '{c[NR]=$1} END {print c[int((NR+1)/2)]}')
  sort -n "$W/times" | awk -v c="$c" '{s[NR]=$1; if ($2>k) k=$2} END {print s[int((NR+1)/2)], s[1], s[NR], k, c}'
}
row() { # name median min max kb cpu
  awk -v n="$1" -v m="$2" -v a="$3" -v b="$4" -v k="$5" -v c="$6" \
    'BEGIN{printf "| %-28s | %7.2f s | %.2f–%.2f s | %6.0f MiB | %7.2f s |\n", n, m, a, b, k/1024, c}'
}

echo "| what | median | spread | peak RSS | CPU (median) |"
echo "|---|---:|---:|---:|---:|"
ing=0 ingc=0 ex=""
if [ -d "$D/sim" ]; then
  read -r ex a b k exc < <(measure "$W/expert" -client "$D/sim/client/*" -gateway "$D/sim/gateway/*" -server "$D/sim/server/*" -out "$W/expert.parquet")
  row "expert's DuckDB script" "$ex" "$a" "$b" "$k" "$exc"
  read -r ing a b k ingc < <(measure sh -c "rm -rf '$W/ingest-out' && '$W/infertrace' ingest --quiet --client '$D/sim/client' --gateway '$D/sim/gateway' --server '$D/sim/server' --out '$W/ingest-out' || [ \$? = 1 ]")
  row "infertrace ingest" "$ing" "$a" "$b" "$k" "$ingc"
  rm -rf "$W/ingest-out"
fi
if [ -n "${BENCH_PARTS:-}" ]; then
  read -r an a b k anc < <(measure sh -c "rm -rf '$D/data/requests' '$D/data/facts'; printf 'job\\twall_s\\tuser_s\\tsys_s\\tpeak_kb\\n' > '$W/jobs.tsv'
    for f in --facts ''; do for i in \$(seq 0 $((BENCH_PARTS - 1))); do
      /usr/bin/time -a -o '$W/jobs.tsv' -f \"analyze \$f --partition \$i/$BENCH_PARTS\t%e\t%U\t%S\t%M\" \\
        '$W/infertrace' analyze --quiet ${ANALYZE_FLAGS:-} '$D/data' \$f --partition \$i/$BENCH_PARTS || exit 1
    done; done")
else
  read -r an a b k anc < <(measure "$W/infertrace" analyze ${ANALYZE_FLAGS:-} "$D/data")
fi
row "infertrace analyze" "$an" "$a" "$b" "$k" "$anc"
read -r rep a b k repc < <(measure "$W/infertrace" report ${ANALYZE_FLAGS:-} "$D/data")
row "infertrace report" "$rep" "$a" "$b" "$k" "$repc"
if [ -n "$ex" ]; then
  awk -v i="$ing" -v a="$an" -v r="$rep" -v e="$ex" \
    'BEGIN{printf "logs to report: ingest + analyze + report = %.1f s = %.2f x the expert script (medians)\n", i + a + r, (i + a + r) / e}'
  awk -v i="$ingc" -v a="$anc" -v r="$repc" -v e="$exc" \
    'BEGIN{printf "CPU, logs to report: %.1f s = %.2f x the expert script'"'"'s %.1f s (medians)\n", i + a + r, (i + a + r) / e, e}'
fi
