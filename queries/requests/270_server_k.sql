-- server_k: the kept server record of each request key: the records of
-- the keys held once, as they are, and the winners of the others
-- (server_win). Not written itself: each step that reads it reads the
-- columns of server_h it needs.
--
-- reads: server_multi, server_u, server_win
-- writes: server_k
CREATE OR REPLACE TEMP VIEW server_k AS
SELECT *, 1::BIGINT AS n_records
FROM server_u ANTI JOIN server_multi USING (request_id)
UNION ALL
SELECT * FROM server_win;
