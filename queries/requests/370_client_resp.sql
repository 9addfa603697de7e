-- client_resp: those of client_miss whose response ID's request ID is a
-- key (pri 2).
--
-- reads: client_miss, join_keys
-- writes: client_resp
CREATE OR REPLACE TEMP TABLE client_resp AS
SELECT x.rid, x.response_request_id AS id_key
FROM client_miss AS x SEMI JOIN join_keys AS r ON r.key = x.response_request_id;
