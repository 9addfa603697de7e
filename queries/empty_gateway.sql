-- empty_gateway.sql: the typed, empty gateway table (see empty_client.sql).
SELECT
    NULL::VARCHAR      AS request_id,
    NULL::TIMESTAMP_NS AS start_time,           -- request received from the client
    NULL::TIMESTAMP_NS AS end_time,             -- response fully sent
    NULL::TIMESTAMP_NS AS upstream_start_time,  -- forwarded to the inference server
    NULL::TIMESTAMP_NS AS upstream_end_time,    -- upstream response fully received
    NULL::TIMESTAMP_NS AS upstream_first_byte_time, -- first byte of the upstream response
    NULL::INTEGER      AS status,
    NULL::VARCHAR      AS route,
    NULL::VARCHAR      AS upstream,
    NULL::VARCHAR      AS gateway,
    NULL::INTEGER      AS attempts,
    NULL::VARCHAR      AS response_flags,
    NULL::VARCHAR      AS model,
    NULL::INTEGER      AS prompt_tokens,
    NULL::INTEGER      AS output_tokens,
    NULL::BIGINT       AS ttft_ns,           -- time to first token as the gateway measured it
    NULL::VARCHAR      AS trace_id,
    NULL::VARCHAR      AS format,
    NULL::VARCHAR      AS source_file,
    NULL::BIGINT       AS source_line
LIMIT 0
