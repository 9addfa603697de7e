-- empty_server.sql: the typed, empty inference-server table (see empty_client.sql).
-- A server logs instants, durations it measured itself, or both (see
-- ingest.ServerRow); format names the input format of each row. joined_by
-- and match_candidates are never written by ingest: analyze fills them for
-- rows it matched to a gateway record by time (TGI), see tgi_rows.sql and match_candidates.sql.
SELECT
    NULL::VARCHAR      AS request_id,
    NULL::VARCHAR      AS engine_request_id, -- the ID as the server logged it
    NULL::VARCHAR      AS trace_id,
    NULL::TIMESTAMP_NS AS arrival_time,      -- request received
    NULL::TIMESTAMP_NS AS scheduled_time,    -- left the queue
    NULL::TIMESTAMP_NS AS first_token_time,  -- first output token produced
    NULL::TIMESTAMP_NS AS end_time,
    NULL::BIGINT       AS e2e_ns,            -- durations the server measured, ns
    NULL::BIGINT       AS queue_ns,
    NULL::BIGINT       AS ttft_ns,
    NULL::BIGINT       AS prefill_ns,
    NULL::BIGINT       AS decode_ns,
    NULL::BIGINT       AS inference_ns,      -- prefill and decode together
    NULL::BIGINT       AS load_ns,           -- model load / runner wait before prefill (Ollama)
    NULL::VARCHAR      AS model,
    NULL::VARCHAR      AS replica,
    NULL::INTEGER      AS prompt_tokens,
    NULL::INTEGER      AS output_tokens,
    NULL::VARCHAR      AS finish_reason,
    NULL::INTEGER      AS status,
    NULL::VARCHAR      AS error,
    NULL::VARCHAR      AS format,
    NULL::VARCHAR      AS joined_by,         -- 'time' when analyze matched the row by time
    NULL::INTEGER      AS match_candidates,  -- gateway records within the matching tolerance
    NULL::VARCHAR      AS source_file,
    NULL::BIGINT       AS source_line
LIMIT 0
