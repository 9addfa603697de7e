-- local_rate: each arrival's local rate over the 31-arrival frame around
-- it (see arr_s and local_pos).
--
-- reads: arr_host, arr_s
-- writes: local_rate
CREATE OR REPLACE TEMP TABLE local_rate AS
WITH
-- The window orders a host's arrivals by (t, rq), integers, not by (t,
-- request_id): the two orders differ only among arrivals of one host at the
-- same t, and those have the same t, so every position's values (rn, the
-- times 15 back and ahead, the next time) are the same in both; only which
-- of the tied arrivals stands at which position differs, and local_tie
-- says that (tie_t is t for an arrival tied with its neighbour, else NULL).
-- bk is the hour of the host-session the arrival falls in, counted from
-- its first arrival on the same clock. rn counts from the host-session's
-- first arrival: rn0 are those before the arrivals read (arr_host).
local_pos AS (
    SELECT rq, pref, hid, rn, host_n,
           (t_ns - first_ns) // 3600000000000 AS bk,
           CASE WHEN rn > 15 THEN back_ns ELSE first_ns END AS lo_ns,
           CASE WHEN rn + 15 <= host_n THEN ahead_ns ELSE last_ns END AS hi_ns,
           -- the time until the host's next arrival: the weight of this
           -- rate in the host's time-weighted median
           CASE WHEN rn < host_n THEN next_ns - t_ns ELSE 0 END AS gap_ns,
           CASE WHEN t_ns = prev_ns OR t_ns = next_ns THEN t_ns END AS tie_t
    FROM (
        SELECT a.rq, a.pref, h.hid, h.host_n, h.first_ns, h.last_ns,
               epoch_ns(a.t) AS t_ns,
               h.rn0 + row_number() OVER w AS rn,
               epoch_ns(lag(a.t, 15) OVER w) AS back_ns,
               epoch_ns(lead(a.t, 15) OVER w) AS ahead_ns,
               epoch_ns(lead(a.t) OVER w) AS next_ns,
               epoch_ns(lag(a.t) OVER w) AS prev_ns
        FROM arr_s AS a
        JOIN arr_host AS h ON h.tier = a.tier AND h.host IS NOT DISTINCT FROM a.host AND h.sid = a.sid
        WINDOW w AS (PARTITION BY h.hid ORDER BY a.t, a.rq)
    )
)
SELECT rq, pref, hid, rn, host_n, bk, gap_ns, tie_t,
       CASE WHEN hi_ns > lo_ns
            THEN (least(rn + 15, host_n) - greatest(rn - 15, 1)) * 1e9 / (hi_ns - lo_ns)
       END AS rate
FROM local_pos;
