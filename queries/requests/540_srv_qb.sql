-- srv_qb: per replica lifetime (kind 0), model and session (1), and model,
-- session and concurrency bucket (2, tpot only), metric and bucket: its
-- samples (n), their min and max, the samples below the bucket (below)
-- and in all (total).
--
-- reads: srv_qv
-- writes: srv_qb
CREATE OR REPLACE TEMP TABLE srv_qb AS
WITH
srv_qb0 AS (
    SELECT rl, ms, msc, metric, pct_bucket(v) AS b, count(*) AS n, min(v) AS lo, max(v) AS hi
    FROM srv_qv GROUP BY ALL
)
SELECT kind, grp, metric, b, n, lo, hi,
       (sum(n) OVER (PARTITION BY kind, grp, metric ORDER BY b ROWS UNBOUNDED PRECEDING) - n)::BIGINT AS below,
       (sum(n) OVER (PARTITION BY kind, grp, metric))::BIGINT AS total
FROM (SELECT CASE WHEN grouping(rl) = 0 THEN 0 WHEN grouping(ms) = 0 THEN 1 ELSE 2 END AS kind,
             CASE WHEN grouping(rl) = 0 THEN rl WHEN grouping(ms) = 0 THEN ms ELSE msc END AS grp,
             metric, b, sum(n)::BIGINT AS n, min(lo) AS lo, max(hi) AS hi
      FROM srv_qb0
      GROUP BY GROUPING SETS ((rl, metric, b), (ms, metric, b), (msc, metric, b)))
WHERE grp IS NOT NULL AND (kind < 2 OR metric = 'tpot');
