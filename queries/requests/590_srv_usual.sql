-- srv_usual: each replica lifetime's yardsticks (see srv_qv): the lower of
-- its own quantile and its model's, over its records (n). A lifetime's that
-- the yardsticks of the whole store give (fact_usual, none in a whole pass;
-- docs/partitions.md) are theirs instead: a window cut inside the lifetime,
-- or inside its model's session, read only part of their records.
--
-- reads: srv_q, srv_rep
-- writes: srv_usual
CREATE OR REPLACE TEMP TABLE srv_usual AS
SELECT c.rl, c.n,
       nullif(least(r.tpot, m.tpot), 0) AS tpot_p25,
       nullif(least(r.pf, m.pf), 0) AS pf_p90,
       -- the queue's yardstick, for replicas whose requests log a queue
       CASE WHEN c.n_queue > 0 THEN nullif(least(r.work, m.work), 0) END AS work_p50,
       nullif(least(r.ld, m.ld), 0) AS ld_p50
FROM (SELECT rl, sum(n)::BIGINT AS n, sum(n_queue)::BIGINT AS n_queue FROM srv_rep GROUP BY rl) AS c
LEFT JOIN (SELECT * FROM srv_q WHERE kind = 0) AS r ON r.grp = c.rl
-- the model's, of a model the replica served, in that session
LEFT JOIN (SELECT rm.rl, any_value(q.tpot) AS tpot, any_value(q.pf) AS pf,
                  any_value(q.work) AS work, any_value(q.ld) AS ld
           FROM (SELECT DISTINCT rl, ms FROM srv_rep WHERE ms IS NOT NULL) AS rm
           JOIN srv_q AS q ON q.kind = 1 AND q.grp = rm.ms
           GROUP BY rm.rl) AS m ON m.rl = c.rl
WHERE c.rl NOT IN (SELECT rl FROM fact_usual())
UNION ALL
SELECT rl, n, tpot_p25, pf_p90, work_p50, ld_p50 FROM fact_usual();
