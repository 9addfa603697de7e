-- srv_q: the quantiles of each group (kind, grp) that srv_qn asks for, one
-- column per metric: pct_interp over the values at the ranks needed (read
-- at once from a bucket of one value, else from srv_qs). The P50 TPOT of a
-- model, session and concurrency bucket (kind 2) that the yardsticks of the
-- whole store give (fact_tpot, none in a whole pass; docs/partitions.md) is
-- theirs instead: a window cut inside the session read only part of it.
--
-- reads: srv_qn, srv_qs
-- writes: srv_q
CREATE OR REPLACE TEMP TABLE srv_q AS
SELECT kind, grp,
       any_value(v) FILTER (WHERE metric = 'tpot') AS tpot,
       any_value(v) FILTER (WHERE metric = 'pf') AS pf,
       any_value(v) FILTER (WHERE metric = 'work') AS work,
       any_value(v) FILTER (WHERE metric = 'ld') AS ld
FROM (SELECT kind, grp, metric, pct_interp(n, q, r, v) AS v
      FROM (SELECT kind, grp, metric, n, q, r, lo AS v FROM srv_qn WHERE lo = hi
            UNION ALL
            SELECT n.kind, n.grp, n.metric, n.n, n.q, n.r, s.v
            FROM srv_qn AS n
            JOIN srv_qs AS s ON s.kind = n.kind AND s.grp = n.grp AND s.metric = n.metric
                            AND s.b = n.b AND s.local = n.local
            WHERE n.lo < n.hi)
      GROUP BY kind, grp, metric, n, q)
GROUP BY kind, grp
HAVING kind < 2 OR grp NOT IN (SELECT msc FROM fact_tpot())
UNION ALL
SELECT 2, msc, tpot, NULL, NULL, NULL FROM fact_tpot();
