-- server_r: the server tier's rows as read ('' IDs read as none), but vLLM
-- text-log rows (annotations, see annot in req_o) and rows without a request ID.
--
-- reads: server
-- writes: server_r
CREATE OR REPLACE TEMP VIEW server_r AS
SELECT * REPLACE (nullif(request_id, '') AS request_id,
                  nullif(trace_id, '') AS trace_id)
FROM server
WHERE nullif(request_id, '') IS NOT NULL AND format IS DISTINCT FROM 'vllm-log';
