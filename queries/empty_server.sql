-- empty_server.sql: the typed, empty inference-server table (see empty_client.sql).
SELECT
    NULL::VARCHAR      AS request_id,
    NULL::TIMESTAMP_NS AS arrival_time,      -- request received
    NULL::TIMESTAMP_NS AS scheduled_time,    -- left the queue
    NULL::TIMESTAMP_NS AS first_token_time,  -- first output token produced
    NULL::TIMESTAMP_NS AS end_time,
    NULL::VARCHAR      AS model,
    NULL::VARCHAR      AS replica,
    NULL::INTEGER      AS prompt_tokens,
    NULL::INTEGER      AS output_tokens,
    NULL::VARCHAR      AS finish_reason,
    NULL::INTEGER      AS status,
    NULL::VARCHAR      AS source_file,
    NULL::BIGINT       AS source_line
LIMIT 0
