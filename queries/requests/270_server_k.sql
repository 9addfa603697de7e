-- server_k is not written itself: each step that reads it reads the
-- columns of server_h it needs.
--
-- reads: server_multi, server_u, server_win
-- writes: server_k
CREATE OR REPLACE TEMP VIEW server_k AS
SELECT *, 1::BIGINT AS n_records
FROM server_u ANTI JOIN server_multi USING (request_id)
UNION ALL
SELECT * FROM server_win;
