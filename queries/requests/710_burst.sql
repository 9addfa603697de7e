-- A request's burst flag comes from its first tier on the path that is
-- judged (gateway, else client, else server: pref); burst holds the
-- requests it flags.
--
-- reads: local_rate, local_tie, usual_rate
-- writes: burst
CREATE OR REPLACE TEMP TABLE burst AS
WITH
-- Per host-session, the hours judged (zlo to zhi): those of this analysis's
-- own arrivals (rq >= 0) and one on either side, where a run of high
-- arrivals through an own one may go on. In a whole pass every arrival is
-- its own and they are all judged. In a window that reads the other
-- windows' arrivals only around it (fact_arr), an hour's usual rate takes
-- the rates of the hours on either side, and a rate the 15 arrivals on
-- either side: the judged hours are exact when 16 arrivals of the hours
-- beyond those on either side are read, or the host-session's first (last)
-- one is; else (a host-session judged, of 31 arrivals or more, that is
-- slower than that) the window cannot be analyzed exactly, and says so.
-- Counted per host-session and hour first (hours, a few rows), so that the
-- arrivals are read once.
hours AS (
    SELECT hid, bk, min(rn) AS lo_rn, max(rn) AS hi_rn, count(*) AS n, bool_or(rq >= 0) AS own,
           any_value(host_n) AS host_n
    FROM local_rate
    GROUP BY hid, bk
),
zone AS (
    SELECT h.hid, o.zlo, o.zhi, min(h.lo_rn) FILTER (WHERE h.bk >= o.zlo) AS first_rn,
           max(h.hi_rn) FILTER (WHERE h.bk <= o.zhi) AS last_rn, any_value(h.host_n) AS host_n,
           CASE WHEN any_value(h.host_n) >= 31
                     AND ((min(h.lo_rn) > 1 AND coalesce(sum(h.n) FILTER (WHERE h.bk < o.zlo - 1), 0) < 16)
                          OR (max(h.hi_rn) < any_value(h.host_n)
                              AND coalesce(sum(h.n) FILTER (WHERE h.bk > o.zhi + 1), 0) < 16))
                THEN error('queries/requests: too few arrivals of another window are read around this one to judge its bursts')
                ELSE true END AS ok
    FROM hours AS h
    JOIN (SELECT hid, min(bk) - 1 AS zlo, max(bk) + 1 AS zhi FROM hours WHERE own GROUP BY hid) AS o
      ON o.hid = h.hid
    GROUP BY h.hid, o.zlo, o.zhi
),
-- Each judged arrival position (its hour has a usual rate; the host-session
-- >= 31 arrivals) and whether its local rate is >= 2x that usual rate.
rate_pos AS (
    SELECT coalesce(t.rq, l.rq) AS rq, l.pref, l.hid, l.rn,
           coalesce(l.rate >= 2 * u.usual, false) AS high
    FROM local_rate AS l
    JOIN zone AS z ON z.hid = l.hid AND l.bk BETWEEN z.zlo AND z.zhi AND z.ok
    JOIN usual_rate AS u ON u.hid = l.hid AND u.wb = l.bk
    LEFT JOIN local_tie AS t ON t.hid = l.hid AND t.rn = l.rn
    WHERE l.host_n >= 31 AND u.usual > 0
),
-- Runs of consecutive high arrivals of a host-session; only a run of >= 31
-- is a burst (a chance cluster of a steady stream is shorter). A run is a
-- block of consecutive rn of one host that are all high: rn minus the rank
-- of the row among the high rows is constant in it. A shorter run of an
-- own arrival that reaches the end of the judged hours, short of the
-- host-session's, might go on beyond them: the window says so.
rate_runs AS (
    SELECT rq, pref, hid, rn, rn - row_number() OVER (PARTITION BY hid ORDER BY rn) AS run
    FROM rate_pos
    WHERE high
),
burst_runs AS (
    SELECT r.hid, r.run
    FROM rate_runs AS r JOIN zone AS z ON z.hid = r.hid
    GROUP BY r.hid, r.run, z.first_rn, z.last_rn, z.host_n
    HAVING count(*) >= 31
        OR CASE WHEN bool_or(r.rq >= 0)
                     AND ((min(r.rn) = z.first_rn AND z.first_rn > 1) OR (max(r.rn) = z.last_rn AND z.last_rn < z.host_n))
                THEN error('queries/requests: a run of high arrivals goes on beyond the arrivals read around this window')
                ELSE false END
)
SELECT DISTINCT b.rq, true AS is_burst
FROM (SELECT r.rq, r.pref FROM rate_runs AS r SEMI JOIN burst_runs AS b ON b.hid = r.hid AND b.run = r.run
      WHERE r.rq >= 0) AS b
ANTI JOIN rate_pos AS p ON p.rq = b.rq AND p.pref < b.pref;
