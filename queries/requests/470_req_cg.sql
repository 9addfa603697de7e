-- One narrow row per request: its records' row ids on each tier and the
-- columns the phases read, the tiers joined by request key one at a time
-- (one hash table per step); rq numbers the requests (the server record's
-- rid, else the gateway's, else the client's, each tier in a range of its
-- own: rids are below 2^60).
--
-- reads: client_k, gateway_k
-- writes: req_cg
CREATE OR REPLACE TEMP TABLE req_cg AS
SELECT coalesce(c.request_id, g.request_id) AS request_id,
       c.rid AS c_rid, c.n_records AS c_records, c.how AS c_how, c.start_time AS c_start, c.client AS c_host,
       g.rid AS g_rid, g.n_records AS g_records, g.how AS g_how, g.start_time AS g_start, g.gateway AS g_host
FROM client_k AS c
FULL JOIN gateway_k AS g ON g.request_id = c.request_id;
