-- empty_client.sql: the typed, empty client table. analyze unions the client
-- Parquet parts onto it BY NAME, so a missing tier directory, an empty one,
-- or parts written before a column existed still expose every column below.
SELECT
    NULL::VARCHAR      AS request_id,
    NULL::TIMESTAMP_NS AS start_time,        -- request sent
    NULL::TIMESTAMP_NS AS first_token_time,  -- first content token received (streamed)
    NULL::TIMESTAMP_NS AS end_time,          -- last byte received
    NULL::INTEGER      AS status,            -- HTTP status seen by the client
    NULL::VARCHAR      AS error,
    NULL::BOOLEAN      AS streamed,
    NULL::VARCHAR      AS model,
    NULL::VARCHAR      AS use_case,
    NULL::VARCHAR      AS client,
    NULL::VARCHAR      AS region,
    NULL::INTEGER      AS prompt_tokens,
    NULL::INTEGER      AS output_tokens,
    NULL::BIGINT       AS e2e_ns,            -- send to last byte, timed by the client (monotonic)
    NULL::BIGINT       AS ttft_ns,           -- send to first token, timed by the client
    NULL::VARCHAR      AS response_id,       -- the response body's id (vLLM: chatcmpl-<request ID>)
    NULL::VARCHAR      AS trace_id,
    NULL::VARCHAR      AS format,
    NULL::VARCHAR      AS source_file,
    NULL::BIGINT       AS source_line
LIMIT 0
