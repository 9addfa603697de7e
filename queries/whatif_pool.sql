-- whatif_pool.sql: the pool's limits as its logs show them, per model and
-- replica (whatif_requests), on each replica's own clock:
--   n             = requests the replica served;
--   first_arr_ns  = its first arrival (when it appeared; whatif moves it to
--                   the common clock);
--   max_batch     = the most requests it ran at once (batch at scheduling);
--   at_max        = requests scheduled into a batch of max_batch;
--   queued        = requests that waited more than 1 ms in its queue;
--   queued_below  = of those, requests scheduled into a batch smaller than
--                   max_batch - 1: a wait that no slot limit explains (a
--                   limit on tokens or memory, or a replica not yet ready).
-- The replica's slots are max_batch when it queued (a request waited
-- while max_batch were running); when it never queued, max_batch is a
-- lower bound only.
WITH m AS (SELECT replica, max(batch) AS max_batch FROM whatif_requests GROUP BY replica)
SELECT w.model, w.replica, count(*) AS n,
    min(w.arr_ns) AS first_arr_ns,
    any_value(m.max_batch) AS max_batch,
    count(*) FILTER (WHERE w.batch = m.max_batch) AS at_max,
    count(*) FILTER (WHERE w.queue_ms > 1) AS queued,
    count(*) FILTER (WHERE w.queue_ms > 1 AND w.batch < m.max_batch - 1) AS queued_below
FROM whatif_requests AS w JOIN m USING (replica)
GROUP BY w.model, w.replica
ORDER BY w.model, w.replica
