-- gateway_noid.sql: per gateway format, its records that log no request ID
-- and no trace ID but a start (Kong's file-log before 3.5, NGINX formats
-- without $request_id), which analyze matches to server records by time
-- (match.go: noid_gateways.sql, noid_servers.sql, match_candidates.sql),
-- over the gateway view as ingested and the requests view:
--   records: those rows;
--   coarse: of them, the rows of gateway hosts (gateway label, else log
--     file) whose every end is a whole second (NGINX's $time_local without
--     $msec), which noid_gateways.sql leaves out;
--   matched: requests whose gateway record of the format joined by time.
-- Formats without such rows are left out.
WITH
g AS (
    SELECT coalesce(format, '?') AS format, coalesce(gateway, source_file) AS host, end_time
    FROM gateway
    WHERE nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL
),
hosts AS (
    SELECT host, coalesce(NOT bool_or(epoch_ms(end_time) % 1000 <> 0), false) AS coarse
    FROM g GROUP BY host
),
m AS (
    SELECT gateway_format AS format, count(*) AS n
    FROM requests WHERE gateway_join = 'time'
    GROUP BY ALL
)
SELECT g.format, count(*) AS records, count(*) FILTER (WHERE h.coarse) AS coarse,
       coalesce(any_value(m.n), 0) AS matched
FROM g JOIN hosts AS h USING (host) LEFT JOIN m USING (format)
GROUP BY g.format
ORDER BY g.format
