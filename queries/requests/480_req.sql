-- req: req_cg joined with the kept server records: one narrow row per
-- request, numbered rq (see req_cg).
--
-- reads: req_cg, server_k
-- writes: req
CREATE OR REPLACE TEMP TABLE req AS
SELECT CASE WHEN s.rid IS NOT NULL THEN s.rid
            WHEN i.g_rid IS NOT NULL THEN i.g_rid + (1::BIGINT << 60)
            ELSE i.c_rid + (2::BIGINT << 60) END AS rq,
       coalesce(i.request_id, s.request_id) AS request_id,
       i.* EXCLUDE (request_id),
       s.rid AS s_rid, s.n_records AS s_records, s.arrival_time
FROM req_cg AS i
FULL JOIN server_k AS s ON s.request_id = i.request_id;
