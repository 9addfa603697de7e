-- Each client record, with only the columns later steps read (the rest
-- is picked up by rid in client_o), its request key (request_id) and how
-- it was found (how).
--
-- reads: client_files, client_hit, client_id, client_tr, client_trg, client_trs
-- writes: client_j
CREATE OR REPLACE TEMP TABLE client_j AS
WITH
client_gateway_tr AS (
    SELECT c.rid, g.request_id AS key,
           CASE WHEN c.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM client_tr AS c
    JOIN (SELECT request_id, trace_id,
                 row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                                   {'file': fid, 'line': line, 'n': n}) AS rk,
                 count(*) OVER (PARTITION BY trace_id) AS n_tr
          FROM client_trg AS g
          ANTI JOIN client_hit AS h ON h.id_key = g.request_id) AS g
      ON g.trace_id = c.trace_id AND g.n_tr = c.n_tr AND g.rk = c.rk
),
-- (a trace the gateway logged is matched to the gateway only: client_trs
-- holds the other traces)
client_server_tr AS (
    SELECT c.rid, s.request_id AS key,
           CASE WHEN c.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM client_tr AS c
    JOIN (SELECT request_id, trace_id,
                 row_number() OVER (PARTITION BY trace_id ORDER BY arrival_time NULLS LAST, {'file': fid, 'line': line}) AS rk,
                 count(*) OVER (PARTITION BY trace_id) AS n_tr
          FROM client_trs AS s
          ANTI JOIN client_hit AS h ON h.id_key = s.request_id) AS s
      ON s.trace_id = c.trace_id AND s.n_tr = c.n_tr AND s.rk = c.rk
)
SELECT c.rid, c.fid, c.line, c.start_time, c.end_time, c.client,
       coalesce(c.id_key, cg.key, cs.key, c.request_id,
                concat('unjoined:', coalesce(f.file, '?'), ':', coalesce(c.line::VARCHAR, '?'),
                       '#' || c.n)) AS request_id,
       coalesce(c.id_how, cg.how, cs.how, 'none') AS how
FROM client_id AS c
LEFT JOIN client_gateway_tr AS cg ON cg.rid = c.rid
LEFT JOIN client_server_tr AS cs ON cs.rid = c.rid
LEFT JOIN client_files AS f ON f.fid = c.fid;
