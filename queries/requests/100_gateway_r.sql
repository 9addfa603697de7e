-- gateway_r: the gateway tier's rows as read ('' IDs read as none). A
-- gateway record with no request ID, no trace ID and no start (NGINX's
-- combined format) is no request (see docs/attribution.md).
--
-- reads: gateway
-- writes: gateway_r
CREATE OR REPLACE TEMP VIEW gateway_r AS
SELECT * REPLACE (nullif(request_id, '') AS request_id,
                  nullif(trace_id, '') AS trace_id)
FROM gateway
WHERE nullif(request_id, '') IS NOT NULL OR nullif(trace_id, '') IS NOT NULL OR start_time IS NOT NULL;
