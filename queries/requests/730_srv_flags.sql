-- A request is behind a cold (burst) one when the latest cold (burst)
-- position at or before it is at or after its busy period's first position.
-- Each server record's flags: its concurrency, whether it is cold itself
-- and whether it waited behind a cold or a burst request.
--
-- reads: burst, cold, srv_g
-- writes: srv_flags
CREATE OR REPLACE TEMP TABLE srv_flags AS
WITH
srv_open AS (
    SELECT s.rq, s.replica, s.concurrency, s.g, s.opens,
           cd.rq IS NOT NULL AS is_cold,
           coalesce(b.is_burst, false) AS is_burst
    FROM srv_g AS s
    LEFT JOIN cold AS cd ON cd.rq = s.rq
    LEFT JOIN burst AS b ON b.rq = s.rq
)
SELECT q.rq, q.concurrency, q.is_cold AS cold,
       coalesce(max(CASE WHEN q.is_cold THEN q.g END) OVER w >= max(CASE WHEN q.opens THEN q.g END) OVER w,
                false) AS behind_cold,
       coalesce(max(CASE WHEN q.is_burst THEN q.g END) OVER w >= max(CASE WHEN q.opens THEN q.g END) OVER w,
                false) AS behind_burst
FROM srv_open AS q
WINDOW w AS (PARTITION BY q.replica ORDER BY q.g ROWS UNBOUNDED PRECEDING);
