-- The samples of the buckets to sort (those not all one value), ranked.
--
-- reads: srv_qn, srv_qv
-- writes: srv_qs
CREATE OR REPLACE TEMP TABLE srv_qs AS
SELECT s.kind, s.grp, s.metric, s.b, x.v,
       row_number() OVER (PARTITION BY s.kind, s.grp, s.metric, s.b ORDER BY x.v) AS local
FROM (SELECT *, pct_bucket(v) AS b FROM srv_qv) AS x
JOIN (SELECT DISTINCT kind, grp, metric, b FROM srv_qn WHERE lo < hi) AS s
     ON s.metric = x.metric AND s.b = x.b
        AND s.grp = CASE s.kind WHEN 0 THEN x.rl WHEN 1 THEN x.ms ELSE x.msc END;
