-- client_id: each client record with the key it joins by ID (id_key) and
-- how (id_how: 'id' or 'response_id'; NULL: it joins nothing by ID).
--
-- reads: client_miss, client_n, client_resp
-- writes: client_id
CREATE OR REPLACE TEMP VIEW client_id AS
SELECT c.*,
       CASE WHEN x.rid IS NULL THEN c.request_id ELSE r.id_key END AS id_key,
       CASE WHEN x.rid IS NULL THEN 'id' WHEN r.rid IS NOT NULL THEN 'response_id' END AS id_how
FROM client_n AS c
LEFT JOIN client_miss AS x ON x.rid = c.rid
LEFT JOIN client_resp AS r ON r.rid = c.rid;
