-- noid_gateways.sql: the gateway side (match_g) of the time match of
-- gateway records that log no request ID and no trace ID (Kong's file-log
-- before 3.5, NGINX log formats without $request_id) to server records
-- that have one (noid_servers.sql, match_t; match_candidates.sql says how
-- they are paired). Exact duplicates (equal in everything but the source)
-- are one record, g_key a hash of the content (the key gateway_matched.sql
-- recomputes). The span is the one the gateway logged around the upstream
-- call (upstream start and end where it logged both, else its own start
-- and end). A gateway host whose every end is a whole second (NGINX's
-- $time_local without $msec: the end is truncated to the second, so the
-- span may lie up to a second off, beyond any tolerance) is left out: its
-- records are counted, never matched.
WITH
g AS (
    SELECT hash(*COLUMNS(* EXCLUDE (source_file, source_line, rid))) AS g_key,
           coalesce(gateway, source_file) AS host,
           upstream_start_time IS NOT NULL AND upstream_end_time IS NOT NULL AS up,
           upstream, upstream_start_time, upstream_end_time, start_time, end_time
    FROM gateway
    WHERE EXISTS (SELECT 1 FROM match_t)
      AND nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL
      AND ((upstream_start_time IS NOT NULL AND upstream_end_time IS NOT NULL) OR end_time IS NOT NULL)
),
fine AS (
    SELECT host FROM g GROUP BY host HAVING bool_or(epoch_ms(end_time) % 1000 <> 0)
)
SELECT g_key,
       any_value(host || CASE WHEN up THEN '' ELSE ' (start/end)' END) AS g_host,
       any_value(upstream) AS upstream,
       any_value(CASE WHEN up THEN epoch_ns(upstream_start_time) ELSE epoch_ns(start_time) END) AS g_start,
       any_value(CASE WHEN up THEN epoch_ns(upstream_end_time) ELSE epoch_ns(end_time) END) AS g_end
FROM g SEMI JOIN fine USING (host)
GROUP BY g_key
