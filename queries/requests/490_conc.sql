-- conc: each server record's concurrency (see conc_ev).
--
-- reads: server_k
-- writes: conc
CREATE OR REPLACE TEMP TABLE conc AS
WITH
-- concurrency: +1 at each arrival, -1 at each end; the running sum over
-- all events at or before an arrival (peers included) is the number in
-- flight then.
-- (A server record's rq is its rid, see req; the phases read the kept
-- server records themselves, not req.)
conc_ev AS (
    SELECT rid AS rq, replica,
           unnest([arrival_time::TIMESTAMP_NS, end_time::TIMESTAMP_NS]) AS t,
           unnest([1, -1]) AS d, unnest([true, false]) AS is_arrival
    FROM server_k
    WHERE replica IS NOT NULL AND end_time >= arrival_time
)
SELECT rq, in_flight AS concurrency
FROM (
    SELECT rq, is_arrival,
           sum(d) OVER (PARTITION BY replica ORDER BY t
                        RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS in_flight
    FROM conc_ev
)
WHERE is_arrival;
