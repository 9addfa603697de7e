-- client_r: the client tier's rows as read ('' IDs read as none); rid is
-- the view's row id.
--
-- reads: client
-- writes: client_r
CREATE OR REPLACE TEMP VIEW client_r AS
SELECT * REPLACE (nullif(request_id, '') AS request_id,
                  nullif(response_id, '') AS response_id,
                  nullif(trace_id, '') AS trace_id)
FROM client;
