-- server_formats.sql: what each server format present in the logs gives,
-- from the rows themselves (server_logged: the server tier as ingested),
-- and how its records joined (the requests view). One row per format.
--   records: server rows of the format (exact duplicates included).
--   with_id: rows carrying a request ID.
--   queue, prefill, decode, ttft, tokens: rows from which queries/requests can
--     take that measure (an instant pair or a logged duration, see
--     queries/requests), or that log output_tokens.
--   annotation: the format is annotations only (vllm-log): never timed.
--   requests: requests whose kept server record has this format;
--     by_id / by_time: of those, joined by request ID / matched by time;
--     ambiguous: matched by time with >= 2 gateway records within the
--     tolerance (the nearest was taken).
--   annotated: requests with at least one annotation (vllm-log only).
--   match_pool: distinct rows of a format matched by time (tgi,
--     ollama-json: end and total time logged, no request ID; exact
--     duplicates once) that could be matched, the base of the match rate.
WITH
s AS (
    SELECT format,
           count(*) AS records,
           count(request_id) AS with_id,
           count(*) FILTER (WHERE (scheduled_time IS NOT NULL AND arrival_time IS NOT NULL) OR queue_ns IS NOT NULL) AS queue,
           count(*) FILTER (WHERE prefill_ns IS NOT NULL OR (first_token_time IS NOT NULL AND scheduled_time IS NOT NULL)) AS prefill,
           count(*) FILTER (WHERE decode_ns IS NOT NULL OR (end_time IS NOT NULL AND first_token_time IS NOT NULL)) AS decode,
           count(*) FILTER (WHERE ttft_ns IS NOT NULL OR (first_token_time IS NOT NULL AND arrival_time IS NOT NULL)) AS ttft,
           count(*) FILTER (WHERE inference_ns IS NOT NULL AND (prefill_ns IS NULL OR decode_ns IS NULL)) AS inference_only,
           count(output_tokens) AS tokens,
           count(DISTINCT hash(end_time, e2e_ns, queue_ns, inference_ns, arrival_time, scheduled_time,
                               output_tokens, error, replica, model))
               FILTER (WHERE format IN ('tgi', 'ollama-json') AND request_id IS NULL AND end_time IS NOT NULL AND e2e_ns >= 0) AS match_pool
    FROM server_logged
    GROUP BY format
),
r AS (
    SELECT server_format AS format,
           count(*) AS requests,
           count(*) FILTER (WHERE server_join = 'id') AS by_id,
           count(*) FILTER (WHERE server_join = 'time') AS by_time,
           count(*) FILTER (WHERE server_join = 'time' AND server_match_candidates >= 2) AS ambiguous
    FROM requests
    WHERE has_server
    GROUP BY server_format
),
a AS (
    SELECT 'vllm-log' AS format, count(*) FILTER (WHERE server_annotations > 0) AS annotated
    FROM requests
)
SELECT s.format,
       s.format = 'vllm-log' AS annotation,
       s.records, s.with_id, s.queue, s.prefill, s.decode, s.ttft, s.inference_only, s.tokens, s.match_pool,
       coalesce(r.requests, 0) AS requests,
       coalesce(r.by_id, 0) AS by_id,
       coalesce(r.by_time, 0) AS by_time,
       coalesce(r.ambiguous, 0) AS ambiguous,
       coalesce(a.annotated, 0) AS annotated
FROM s
LEFT JOIN r USING (format)
LEFT JOIN a USING (format)
ORDER BY s.records DESC, s.format
