-- gateway_matched.sql: the gateway view queries/requests reads: gateway_logged
-- (the gateway tier as ingested) with each record that logs no request ID
-- and that analyze matched to a server record by time (noid_gateways.sql,
-- noid_servers.sql, match_candidates.sql; only unambiguous pairs, match.go)
-- given that server record's request_id and joined_by = 'time'; joined_by
-- is NULL on every other row, which is unchanged. The key is the one of
-- noid_gateways.sql, so exact duplicates of a matched line get the same ID
-- and collapse in queries/requests.
-- Only the records without an ID are hashed.
SELECT *, NULL::VARCHAR AS joined_by
FROM gateway_logged
WHERE NOT (nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL)
UNION ALL BY NAME
SELECT g.* EXCLUDE (g_key) REPLACE (coalesce(m.request_id, g.request_id) AS request_id),
       CASE WHEN m.request_id IS NOT NULL THEN 'time' END AS joined_by
FROM (SELECT *, hash(*COLUMNS(* EXCLUDE (source_file, source_line, rid))) AS g_key
      FROM gateway_logged
      WHERE nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL) AS g
LEFT JOIN gateway_time AS m ON m.g_key = g.g_key
