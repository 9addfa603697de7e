-- Sessions (see docs/attribution.md): the minutes (epoch_ns // 60e9) in which some
-- tier logged an arrival, numbered sid from 1 and a new session after a
-- run of more than 10 minutes without one. The minutes of the other
-- windows' arrivals (fact_min, none in a whole pass) count alike, so that a
-- window cut inside a session numbers it as the whole store does.
--
-- reads: arrivals
-- writes: sess
CREATE OR REPLACE TEMP TABLE sess AS
SELECT m, sum(brk) OVER (ORDER BY m ROWS UNBOUNDED PRECEDING) AS sid
FROM (SELECT m, CASE WHEN m - lag(m) OVER (ORDER BY m) <= 11 THEN 0 ELSE 1 END AS brk
      FROM (SELECT DISTINCT m
            FROM (SELECT epoch_ns(t) // 60000000000 AS m FROM arrivals UNION ALL SELECT m FROM fact_min())));
