-- Each gateway record with its request key (request_id) and how it was
-- found (how).
--
-- reads: gateway_files, gateway_n, gateway_trc, server_k, server_trc
-- writes: gateway_j
CREATE OR REPLACE TEMP TABLE gateway_j AS
WITH
gateway_tr AS (
    SELECT rid, trace_id,
           row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                             {'file': fid, 'line': line, 'n': n}) AS rk,
           count(*) OVER (PARTITION BY trace_id) AS n_tr
    FROM gateway_trc AS g
    ANTI JOIN (SELECT request_id FROM server_k WHERE request_id IN (SELECT request_id FROM gateway_trc)) AS s
         ON s.request_id = g.request_id
),
server_tr AS (
    SELECT request_id, trace_id,
           row_number() OVER (PARTITION BY trace_id ORDER BY arrival_time NULLS LAST, {'file': fid, 'line': line}) AS rk,
           count(*) OVER (PARTITION BY trace_id) AS n_tr
    FROM server_trc AS s
    ANTI JOIN (SELECT request_id FROM gateway_n WHERE request_id IN (SELECT request_id FROM server_trc)) AS g
         ON g.request_id = s.request_id
),
gateway_server_tr AS (
    SELECT g.rid, s.request_id AS key,
           CASE WHEN g.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM gateway_tr AS g
    JOIN server_tr AS s ON s.trace_id = g.trace_id AND s.n_tr = g.n_tr AND s.rk = g.rk
)
SELECT g.* REPLACE (
           CASE WHEN g.request_id IS NOT NULL THEN g.request_id
                WHEN gs.key IS NOT NULL THEN gs.key
                WHEN gt.n_tr = 1 THEN 'trace:' || g.trace_id
                WHEN gt.n_tr > 1 THEN 'trace:' || g.trace_id || '#' || gt.rk
                ELSE concat('unjoined:', coalesce(f.file, '?'), ':', coalesce(g.line::VARCHAR, '?'),
                            '#' || g.n) END AS request_id),
       CASE WHEN g.by_time THEN 'time'
            WHEN g.request_id IS NOT NULL THEN 'id'
            ELSE coalesce(gs.how, 'none') END AS how
FROM gateway_n AS g
LEFT JOIN gateway_server_tr AS gs ON gs.rid = g.rid
LEFT JOIN gateway_tr AS gt ON gt.rid = g.rid
LEFT JOIN gateway_files AS f ON f.fid = g.fid;
