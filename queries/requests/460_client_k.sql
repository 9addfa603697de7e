-- client_k: the kept client record of each key, with the columns req_cg
-- reads.
--
-- reads: client_j, client_multi, client_win
-- writes: client_k
CREATE OR REPLACE TEMP VIEW client_k AS
SELECT request_id, rid, how, start_time, client, 1::BIGINT AS n_records
FROM client_j ANTI JOIN client_multi USING (request_id)
UNION ALL
SELECT request_id, rid, how, start_time, client, n_records FROM client_win;
