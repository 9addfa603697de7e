-- pct_ci.sql: exact percentiles (P50/P90/P95/P99, or those asked for) and the
-- 95% intervals of P95 and P99 for every group and metric of a table of the
-- report (the slices, the phases, the replicas, the time windows, the
-- trend's periods), in memory bounded by DuckDB's memory_limit whatever
-- the number of requests. The caller creates four inputs (analyze's
-- pctTable: TABLE_ci_groups.sql, TABLE_ci_values.sql, the quantiles and
-- no cells; reportPercentiles: those of every table of a report, in one
-- run, with the cells of slice_phase_ci_values.sql and
-- replica_phase_ci_values.sql):
--   pct_groups(gid, grp_all, part, ...): one row per group (gid an integer);
--     a group with grp_all holds every sample of the groups without it of
--     the same part (the all-requests row of the slice tables, of each
--     period of the trend; part NULL: one part);
--   pct_values(gid, metric, value): the samples of each group (not those
--     of an all-requests group), value DOUBLE; NULL is no sample; or of a
--     cell of pct_cells, gid then the cell's src;
--   pct_cells(src, gid, metric): a cell, samples that count in several
--     groups (each of its rows names one, for its samples of metric, or of
--     every metric when metric is NULL; the all-requests group too when
--     they count there), so that samples shared by the groups of two
--     tables (a request's slice and its phase) are read and counted once;
--     src is no gid of pct_groups;
--   pct_quantiles(q): the quantiles to give (DOUBLE, 0 <= q <= 1).
-- Output, per group and metric with at least one sample:
--   n: its samples;
--   q: the quantiles of pct_quantiles in ascending order (the report's
--     tables: P50, P90, P95, P99) exactly as quantile_cont gives them: with
--     pos = (n - 1) q, the samples x(i) in ascending order (1 = smallest),
--     lo = x(floor(pos) + 1), hi = x(ceil(pos) + 1), P = lo when
--     floor(pos) = ceil(pos), else lo (1 - d) + hi d, d = pos - floor(pos)
--     (pct_interp of macros.sql; for 1..10, P50 = 5.5 and P90 = 9.1);
--   small: pct_too_small(n, q) for q = 0.5, 0.9, 0.95, 0.99 (n < 1/(1-q)),
--     whatever pct_quantiles holds: the report shows "n too small" for
--     that percentile, not a number;
--   p95_lo/p95_hi, p99_lo/p99_hi: the 95% confidence intervals of P95 and
--     P99, the order statistics of ranks pct_lo_rank(n, q) and
--     pct_hi_rank(n, q) (distribution-free); NULL (open) where a rank is
--     outside 1..n, and none where n is too small.
-- The rules are those of macros.sql, as in the Contract section.
--
-- Why not quantile_cont: DuckDB keeps every sample of a quantile in the
-- aggregate's state, in memory that does not spill, so a report of 30M
-- requests would hold gigabytes whatever --memory-limit says. Here every
-- step is a grouped count, a join or a sort, which spill under the limit:
--   1. each sample falls in a bucket, pct_bucket(value) of macros.sql,
--      which never decreases as the value grows; one grouped pass counts
--      each group's samples per bucket, with their min and max;
--   2. from the running counts, the bucket of each rank needed (the two
--      of each percentile and the four interval bounds) and its rank
--      within the bucket: a bucket whose min = max gives the value at once;
--   3. only the samples of the other needed buckets (about 1% of them) are
--      sorted, and the value at each rank is read off.
-- The samples are read twice (steps 1 and 3), never held together. Each
-- step is a statement of its own (analyze runs them in turn; the last one's
-- rows are the output), so that DuckDB plans the joins of the samples with
-- the small tables knowing their sizes.
-- Each group's samples count in itself and in its part's all-requests
-- group, a cell's in the groups pct_cells names (metric NULL: every
-- metric).
CREATE OR REPLACE TEMP TABLE pct_into AS
SELECT gid AS src, gid, NULL::VARCHAR AS metric FROM pct_groups
UNION ALL
SELECT c.gid AS src, a.gid, NULL::VARCHAR AS metric
FROM pct_groups AS c
JOIN pct_groups AS a ON a.grp_all AND NOT c.grp_all AND a.part IS NOT DISTINCT FROM c.part
UNION ALL
SELECT src, gid, metric FROM pct_cells;
-- Step 1: per group, metric and bucket, its samples (n), their min and
-- max, the samples in the buckets below it (below) and in all (total).
CREATE OR REPLACE TEMP TABLE pct_buckets AS
WITH b0 AS (
    SELECT gid, metric, pct_bucket(value) AS b, count(*) AS n, min(value) AS lo, max(value) AS hi
    FROM pct_values
    WHERE value IS NOT NULL
    GROUP BY ALL
),
b1 AS (
    SELECT i.gid, b0.metric, b0.b, sum(b0.n)::BIGINT AS n, min(b0.lo) AS lo, max(b0.hi) AS hi
    FROM b0 JOIN pct_into AS i ON i.src = b0.gid AND coalesce(i.metric, b0.metric) = b0.metric
    GROUP BY ALL
)
SELECT gid, metric, b, n, lo, hi,
    (sum(n) OVER (PARTITION BY gid, metric ORDER BY b ROWS UNBOUNDED PRECEDING) - n)::BIGINT AS below,
    (sum(n) OVER (PARTITION BY gid, metric))::BIGINT AS total
FROM b1;
-- Step 2: the ranks needed, each in its bucket, with its rank there
-- (local).
CREATE OR REPLACE TEMP TABLE pct_need AS
WITH t AS (
    SELECT gid, metric, any_value(total) AS n FROM pct_buckets GROUP BY ALL
),
r AS (
    SELECT t.gid, t.metric, t.n, unnest([floor((t.n - 1) * p.q) + 1, ceil((t.n - 1) * p.q) + 1])::BIGINT AS r
    FROM t, pct_quantiles AS p
    UNION
    SELECT gid, metric, n, unnest([pct_lo_rank(n, 0.95), pct_hi_rank(n, 0.95),
                                   pct_lo_rank(n, 0.99), pct_hi_rank(n, 0.99)])::BIGINT AS r
    FROM t
)
SELECT r.gid, r.metric, r.n, r.r, b.b, r.r - b.below AS local, b.lo, b.hi
FROM r
JOIN pct_buckets AS b ON b.gid = r.gid AND b.metric = r.metric AND r.r > b.below AND r.r <= b.below + b.n;
-- The buckets to sort (those whose samples are not all one value), by
-- the group their samples come from.
CREATE OR REPLACE TEMP TABLE pct_sort AS
SELECT DISTINCT i.src, n.gid, n.metric, n.b
FROM pct_need AS n JOIN pct_into AS i ON i.gid = n.gid AND coalesce(i.metric, n.metric) = n.metric
WHERE n.lo < n.hi;
-- Step 3: the samples of those buckets sorted, the value at each rank,
-- and the percentiles and intervals of each group and metric.
WITH sorted AS (
    SELECT s.gid, s.metric, s.b, v.value,
        row_number() OVER (PARTITION BY s.gid, s.metric, s.b ORDER BY v.value) AS local
    FROM pct_values AS v
    JOIN pct_sort AS s ON s.src = v.gid AND s.metric = v.metric AND s.b = pct_bucket(v.value)
),
x AS (
    SELECT gid, metric, n, r, lo AS value FROM pct_need WHERE lo = hi
    UNION ALL
    SELECT n.gid, n.metric, n.n, n.r, s.value
    FROM pct_need AS n
    JOIN sorted AS s ON s.gid = n.gid AND s.metric = n.metric AND s.b = n.b AND s.local = n.local
),
qs AS (
    SELECT x.gid, x.metric, p.q, pct_interp(x.n, p.q, x.r, x.value) AS v
    FROM x, pct_quantiles AS p
    GROUP BY x.gid, x.metric, x.n, p.q
),
agg AS (
    SELECT gid, metric, n,
        [pct_too_small(n, 0.5), pct_too_small(n, 0.9), pct_too_small(n, 0.95), pct_too_small(n, 0.99)] AS small,
        CASE WHEN NOT pct_too_small(n, 0.95) THEN max(value) FILTER (WHERE r = pct_lo_rank(n, 0.95)) END AS p95_lo,
        CASE WHEN NOT pct_too_small(n, 0.95) THEN max(value) FILTER (WHERE r = pct_hi_rank(n, 0.95)) END AS p95_hi,
        CASE WHEN NOT pct_too_small(n, 0.99) THEN max(value) FILTER (WHERE r = pct_lo_rank(n, 0.99)) END AS p99_lo,
        CASE WHEN NOT pct_too_small(n, 0.99) THEN max(value) FILTER (WHERE r = pct_hi_rank(n, 0.99)) END AS p99_hi
    FROM x
    GROUP BY gid, metric, n
),
-- Each group's quantiles as one list, in ascending order of q.
ql AS (
    SELECT gid, metric, list_transform(list_sort(list([q, v])), lambda e: e[2]) AS q
    FROM qs
    GROUP BY gid, metric
)
SELECT g.* EXCLUDE (gid), agg.gid, agg.metric, agg.n, ql.q, agg.* EXCLUDE (gid, metric, n)
FROM agg
JOIN ql ON ql.gid = agg.gid AND ql.metric = agg.metric
JOIN pct_groups AS g ON g.gid = agg.gid
