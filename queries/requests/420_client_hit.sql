-- client_hit: the keys of client_trg and client_trs that a client record
-- joined by ID (those records take no part in trace matching).
--
-- reads: client_id, client_trg, client_trs
-- writes: client_hit
CREATE OR REPLACE TEMP TABLE client_hit AS
SELECT DISTINCT id_key FROM client_id
WHERE id_key IN (SELECT request_id FROM client_trg UNION ALL SELECT request_id FROM client_trs);
