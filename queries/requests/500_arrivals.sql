-- Phases (see docs/attribution.md): each replica's warm-up from its own requests,
-- bursts from each host's arrival rate, and the queue a request waits in
-- behind either.
-- Every arrival of every tier, on its own host's clock: of the requests this
-- analysis keeps (arr_owned, all of them but in a window whose facts the
-- other windows give; see macros.sql).
--
-- reads: req, server_k
-- writes: arrivals
CREATE OR REPLACE TEMP VIEW arrivals AS
SELECT rq, request_id, 1 AS pref, 'gateway' AS tier, g_host AS host, g_start::TIMESTAMP_NS AS t
FROM req WHERE g_start IS NOT NULL AND arr_owned(rq)
UNION ALL
SELECT rq, request_id, 2, 'client', c_host, c_start::TIMESTAMP_NS
FROM req WHERE c_start IS NOT NULL AND arr_owned(rq)
UNION ALL
SELECT rid, request_id, 3, 'server', replica, arrival_time::TIMESTAMP_NS
FROM server_k WHERE arrival_time IS NOT NULL AND arr_owned(rid);
