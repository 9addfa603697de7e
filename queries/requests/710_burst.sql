-- A request's burst flag comes from its first tier on the path that is
-- judged (gateway, else client, else server: pref); burst holds the
-- requests it flags.
--
-- reads: local_rate, local_tie, usual_rate
-- writes: burst
CREATE OR REPLACE TEMP TABLE burst AS
WITH
-- Each judged arrival position (its hour has a usual rate; the host-session
-- >= 31 arrivals) and whether its local rate is >= 2x that usual rate.
rate_pos AS (
    SELECT coalesce(t.rq, l.rq) AS rq, l.pref, l.hid, l.rn,
           coalesce(l.rate >= 2 * u.usual, false) AS high
    FROM local_rate AS l
    JOIN usual_rate AS u ON u.hid = l.hid AND u.wb = l.bk
    LEFT JOIN local_tie AS t ON t.hid = l.hid AND t.rn = l.rn
    WHERE l.host_n >= 31 AND u.usual > 0
),
-- Runs of consecutive high arrivals of a host-session; only a run of >= 31
-- is a burst (a chance cluster of a steady stream is shorter). A run is a
-- block of consecutive rn of one host that are all high: rn minus the rank
-- of the row among the high rows is constant in it.
rate_runs AS (
    SELECT rq, pref, hid, rn - row_number() OVER (PARTITION BY hid ORDER BY rn) AS run
    FROM rate_pos
    WHERE high
),
burst_runs AS (
    SELECT hid, run
    FROM rate_runs
    GROUP BY hid, run
    HAVING count(*) >= 31
)
SELECT DISTINCT b.rq, true AS is_burst
FROM (SELECT r.rq, r.pref FROM rate_runs AS r SEMI JOIN burst_runs AS b ON b.hid = r.hid AND b.run = r.run) AS b
ANTI JOIN rate_pos AS p ON p.rq = b.rq AND p.pref < b.pref;
