-- Phases (see docs/attribution.md): each replica's warm-up from its own requests,
-- bursts from each host's arrival rate, and the queue a request waits in
-- behind either.
-- Every arrival of every tier, on its own host's clock: of the requests this
-- analysis keeps (arr_owned, all of them but in a window whose facts the
-- other windows give; see macros.sql). A server's host is its label; its
-- replica (server_replica, the replica lifetimes' key) names an unlabelled
-- one by its log too.
--
-- reads: req, server_files, server_k
-- writes: arrivals
CREATE OR REPLACE TEMP VIEW arrivals AS
SELECT rq, request_id, 1 AS pref, 'gateway' AS tier, g_host AS host, g_start::TIMESTAMP_NS AS t,
       NULL::VARCHAR AS replica
FROM req WHERE g_start IS NOT NULL AND arr_owned(rq)
UNION ALL
SELECT rq, request_id, 2, 'client', c_host, c_start::TIMESTAMP_NS, NULL
FROM req WHERE c_start IS NOT NULL AND arr_owned(rq)
UNION ALL
SELECT k.rid, k.request_id, 3, 'server', k.replica, k.arrival_time::TIMESTAMP_NS, server_replica(k.replica, f.path)
FROM server_k AS k LEFT JOIN server_files AS f ON f.fid = k.fid
WHERE k.arrival_time IS NOT NULL AND arr_owned(k.rid);
