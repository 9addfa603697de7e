-- pct_ci.sql: the 95% confidence intervals of P95 and P99, and which of
-- P50/P90/P95/P99 have too few samples, for every group and metric of a
-- table of the report (the slices, the phases, the replicas). The caller
-- creates two inputs ({slice,phase,replica}_ci_groups.sql and
-- _ci_values.sql):
--   ci_groups(grp_all, grp, metric, n, t50, t90): per group and metric its
--     sample count n and its quantile_cont P50 (t50) and P90 (t90, NULL
--     where not computed);
--   ci_values(grp_all, grp, metric, value): the samples (no NULLs).
-- The rules are those of macros.sql, as in the Contract section:
--   small: pct_too_small(n, q) for q = 0.5, 0.9, 0.95, 0.99 (n < 1/(1-q)):
--     the report shows "n too small" for that percentile, not a number;
--   p95_lo/p95_hi, p99_lo/p99_hi: the order statistics of ranks
--     pct_lo_rank(n, q) and pct_hi_rank(n, q) (distribution-free); NULL
--     (open) where a rank is outside 1..n, and none where n is too small.
-- Cost: only the samples at or above a threshold t are ranked: t is the
-- group's P90 where the rank P90 interpolates towards, ceil(0.9 (n-1)) + 1,
-- is at most P95's lower rank (so every sample of a rank we need is >= t),
-- else its P50 (which holds for every n >= 20, where P95 is not too
-- small). A sample's rank is then (n - samples >= t) + its row number
-- among them.
WITH g AS (
    SELECT *,
        pct_lo_rank(n, 0.95) AS lo95, pct_hi_rank(n, 0.95) AS hi95,
        pct_lo_rank(n, 0.99) AS lo99, pct_hi_rank(n, 0.99) AS hi99,
        CASE WHEN t90 IS NOT NULL AND ceil(0.9 * (n - 1)) + 1 <= pct_lo_rank(n, 0.95) THEN t90 ELSE t50 END AS t
    FROM ci_groups
),
top AS (
    SELECT g.grp_all, g.grp, g.metric, v.value, g.lo95, g.hi95, g.lo99, g.hi99,
        g.n - count(*) OVER (PARTITION BY g.grp_all, g.grp, g.metric)
            + row_number() OVER (PARTITION BY g.grp_all, g.grp, g.metric ORDER BY v.value) AS rk
    FROM g
    JOIN ci_values AS v ON v.grp_all = g.grp_all AND v.grp IS NOT DISTINCT FROM g.grp AND v.metric = g.metric
    WHERE NOT pct_too_small(g.n, 0.95) AND v.value >= g.t
),
b AS (
    SELECT grp_all, grp, metric,
        max(value) FILTER (WHERE rk = lo95) AS p95_lo,
        max(value) FILTER (WHERE rk = hi95) AS p95_hi,
        max(value) FILTER (WHERE rk = lo99) AS p99_lo,
        max(value) FILTER (WHERE rk = hi99) AS p99_hi
    FROM top
    GROUP BY ALL
)
SELECT g.grp_all, g.grp, g.metric, g.n,
    [pct_too_small(g.n, 0.5), pct_too_small(g.n, 0.9), pct_too_small(g.n, 0.95), pct_too_small(g.n, 0.99)] AS small,
    b.p95_lo, b.p95_hi,
    CASE WHEN NOT pct_too_small(g.n, 0.99) THEN b.p99_lo END AS p99_lo,
    CASE WHEN NOT pct_too_small(g.n, 0.99) THEN b.p99_hi END AS p99_hi
FROM g
LEFT JOIN b ON b.grp_all = g.grp_all AND b.grp IS NOT DISTINCT FROM g.grp AND b.metric = g.metric
