-- tgi_rows.sql: the server side (match_t) of the time match of TGI rows
-- and Ollama's final objects (format ollama-json), which log no request ID,
-- to gateway records (match_candidates.sql says how they are paired).
--
-- TGI rows: end_time (the Success log line, TGI host wall clock) and e2e_ns
-- (total_time); arrival = end - e2e. Exact duplicates (equal in everything
-- but the source line) are one row, t_key a hash of the content (also its
-- t_ord). A TGI host is its replica label, else its log file.
--
-- Ollama's final objects log no request ID either but their end
-- (created_at, the Ollama host's wall clock) and the server's own E2E
-- duration (total_duration, from the handler's start), so arrival = end -
-- e2e. An Ollama host is its log file (Ollama names no replica). The key
-- leaves out Ollama's load, prompt eval and eval durations: two of its rows
-- are one only if they also end on the same nanosecond after the same
-- total_duration, which distinct requests do not. Ollama's GIN access lines
-- (ollama-gin) are not matched: their own time has no zone, and the end_time
-- they take from a collector's time (docs/collectors.md), when one is there,
-- is not used to pair them with gateway records.
SELECT hash(end_time, e2e_ns, queue_ns, inference_ns, arrival_time, scheduled_time,
            output_tokens, error, replica, model) AS t_key,
       t_key AS t_ord,
       coalesce(any_value(replica), min(source_file)) AS t_host,
       any_value(replica) AS replica,
       epoch_ns(any_value(end_time)) AS t_end,
       any_value(e2e_ns) AS t_e2e
FROM server_logged
WHERE format IN ('tgi', 'ollama-json') AND request_id IS NULL AND end_time IS NOT NULL AND e2e_ns >= 0
GROUP BY t_key
