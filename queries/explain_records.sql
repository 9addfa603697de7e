-- explain_records.sql: the kept record of each tier of every request of
-- requests.parquet, with its instants, found again in the tier tables by
-- its source 'file:line' (the requests steps' client_source, gateway_source,
-- server_source; a file is named as they name it, TIER_file). A source shared by several rows (the records of one
-- JSON document or OTLP line) is ambiguous and gives no record here, so
-- nothing is ever placed from the wrong row. One row per request with a
-- gateway record; explain and clock_offsets.sql read it (the
-- explain_records table analyze creates).
WITH
c AS (
    SELECT concat(client_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        any_value(start_time) AS start_time, any_value(first_token_time) AS first_token_time,
        any_value(end_time) AS end_time, any_value(status) AS status,
        any_value(error) AS error, any_value(coalesce(client, source_file)) AS host
    FROM client WHERE source_file IS NOT NULL
    GROUP BY client_file(source_file, rid), source_line HAVING count(*) = 1
),
g AS (
    SELECT concat(gateway_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        any_value(start_time) AS start_time, any_value(upstream_start_time) AS upstream_start_time,
        any_value(upstream_end_time) AS upstream_end_time, any_value(end_time) AS end_time,
        any_value(status) AS status, any_value(coalesce(gateway, source_file)) AS host
    FROM gateway WHERE source_file IS NOT NULL
    GROUP BY gateway_file(source_file, rid), source_line HAVING count(*) = 1
),
s AS (
    SELECT concat(server_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        any_value(arrival_time) AS arrival_time, any_value(scheduled_time) AS scheduled_time,
        any_value(first_token_time) AS first_token_time, any_value(end_time) AS end_time,
        any_value(coalesce(replica, source_file)) AS host
    FROM server_logged WHERE source_file IS NOT NULL
    GROUP BY server_file(source_file, rid), source_line HAVING count(*) = 1
)
SELECT r.request_id,
    r.client_records, r.gateway_records, r.server_records,
    c.host AS client_host, c.start_time AS c_start, c.first_token_time AS c_first, c.end_time AS c_end, c.status AS c_status, c.error AS c_error,
    g.host AS gateway_host, g.start_time AS g_start, g.upstream_start_time AS g_up_start,
    g.upstream_end_time AS g_up_end, g.end_time AS g_end, g.status AS g_status,
    s.host AS server_host, s.arrival_time AS s_arrival, s.scheduled_time AS s_scheduled,
    s.first_token_time AS s_first, s.end_time AS s_end
FROM requests AS r
JOIN g ON g.src = r.gateway_source
LEFT JOIN c ON c.src = r.client_source
LEFT JOIN s ON s.src = r.server_source AND r.server_join = 'id'
WHERE r.has_gateway
