-- srv_slow: each server record of a replica lifetime of 20 or more records,
-- whether it can be judged (judged) and whether it is slow against its
-- lifetime's yardsticks (slow).
--
-- reads: srv_p, srv_q, srv_usual
-- writes: srv_slow
CREATE OR REPLACE TEMP VIEW srv_slow AS
SELECT p.rq, p.request_id, p.rl, p.a_ns,
       (p.tpot_ns IS NOT NULL OR u.tpot_p25 IS NULL) AND (p.pf_ns IS NOT NULL OR u.pf_p90 IS NULL)
           AND (p.q_ns IS NOT NULL OR u.work_p50 IS NULL)
           AND (p.ld_ns IS NOT NULL OR u.ld_p50 IS NULL)
           AND coalesce(p.tpot_ns, p.pf_ns, p.q_ns, p.ld_ns) IS NOT NULL AS judged,
       coalesce(p.tpot_ns >= 2.5 * u.tpot_p25, false)
           OR coalesce(p.tpot_ns >= 1.5 * c.tpot_p50, false)
           OR coalesce(p.pf_ns >= 2.5 * u.pf_p90, false)
           OR coalesce(p.q_ns >= 2.5 * u.work_p50, false)
           OR coalesce(p.ld_ns >= 2.5 * u.ld_p50 AND p.ld_ns >= 100000000, false) AS slow
FROM srv_p AS p JOIN srv_usual AS u USING (rl)
LEFT JOIN (SELECT grp AS msc, tpot AS tpot_p50 FROM srv_q WHERE kind = 2) AS c USING (msc)
WHERE u.n >= 20;
