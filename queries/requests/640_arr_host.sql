-- arr_host: each host-session (tier, host, session) numbered hid, with its
-- arrivals (host_n), its first and last arrival, and how many of them
-- stand before the minutes of fact_arr (rn0: 0 in a whole pass). They are
-- summed from each minute's arrivals, this analysis's and the other
-- windows' (fact_min, none in a whole pass), so that a window cut inside a
-- session has the whole session's.
--
-- reads: arrivals, sess
-- writes: arr_host
CREATE OR REPLACE TEMP TABLE arr_host AS
SELECT x.tier, x.host, s.sid, sum(x.n)::BIGINT AS host_n,
       min(x.first_ns) AS first_ns, max(x.last_ns) AS last_ns,
       coalesce(sum(x.n) FILTER (WHERE x.m < b.lo_m), 0)::BIGINT AS rn0,
       row_number() OVER (ORDER BY x.tier, x.host, s.sid) AS hid
FROM (SELECT tier, host, epoch_ns(t) // 60000000000 AS m, count(*) AS n,
             epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns
      FROM arrivals GROUP BY ALL
      UNION ALL
      SELECT tier, host, m, n, first_ns, last_ns FROM fact_min()) AS x
JOIN sess AS s ON s.m = x.m
LEFT JOIN fact_bound() AS b ON b.tier = x.tier AND b.host IS NOT DISTINCT FROM x.host
GROUP BY x.tier, x.host, s.sid;
