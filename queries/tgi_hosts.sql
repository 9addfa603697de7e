-- tgi_hosts.sql: per TGI host (its replica label, else its log file, as in
-- tgi_rows.sql; Ollama's ollama-json rows count as TGI rows there),
-- the distinct TGI rows that could be matched by time
-- (end and total time logged; exact duplicates once) and how many of them
-- were, over server_logged and the requests view; with the gateway records
-- a match could use (a request ID and both ends of a span: upstream start
-- and end, else start and end), the same on every row. The report words
-- why a TGI host's records did not join from it; format is the host's
-- (tgi or ollama-json).
WITH
tgi AS (
    SELECT DISTINCT coalesce(replica, source_file) AS host, format,
           hash(end_time, e2e_ns, queue_ns, inference_ns, arrival_time, scheduled_time,
                output_tokens, error, replica, model) AS t_key
    FROM server_logged
    WHERE format IN ('tgi', 'ollama-json') AND request_id IS NULL AND end_time IS NOT NULL AND e2e_ns >= 0
),
matched AS (
    SELECT coalesce(replica, regexp_replace(server_source, ':[0-9]+$', '')) AS host, count(*) AS n
    FROM requests
    WHERE server_join = 'time'
    GROUP BY ALL
),
spans AS (
    SELECT count(*) AS n
    FROM gateway
    WHERE nullif(request_id, '') IS NOT NULL
      AND ((upstream_start_time IS NOT NULL AND upstream_end_time IS NOT NULL)
           OR (start_time IS NOT NULL AND end_time IS NOT NULL))
)
SELECT t.host, min(t.format) AS format, count(*) AS records, coalesce(any_value(m.n), 0) AS matched,
       (SELECT n FROM spans) AS gateway_spans
FROM tgi AS t LEFT JOIN matched AS m USING (host)
GROUP BY t.host
ORDER BY t.host
