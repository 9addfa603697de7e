-- empty_gateway.sql: the typed, empty gateway table (see empty_client.sql).
SELECT
    NULL::VARCHAR      AS request_id,
    NULL::TIMESTAMP_NS AS start_time,           -- request received from the client
    NULL::TIMESTAMP_NS AS end_time,             -- response fully sent
    NULL::TIMESTAMP_NS AS upstream_start_time,  -- forwarded to the inference server
    NULL::TIMESTAMP_NS AS upstream_end_time,    -- upstream response fully received
    NULL::INTEGER      AS status,
    NULL::VARCHAR      AS route,
    NULL::VARCHAR      AS upstream,
    NULL::VARCHAR      AS gateway,
    NULL::VARCHAR      AS source_file,
    NULL::BIGINT       AS source_line
LIMIT 0
