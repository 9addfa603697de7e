-- unjoined.sql: per tier and format, the records kept (one per request on
-- that tier, after duplicates and retries) and how many of them joined no
-- other tier, over the requests view and, for server rows that carry no
-- request ID, the server tier as ingested (server_logged).
--   client, gateway: requests whose kept record has the format; not_joined:
--     of those, requests with no record on another tier (keyed by their own
--     ID, or 'unjoined:<file>:<line>' without one).
--   server: requests whose kept server record has the format, plus the
--     distinct server rows without a request ID (exact duplicates once)
--     that no time match gave one (unmatched TGI, TensorRT-LLM, Triton
--     children); not_joined: server-only requests plus those rows.
--     Annotation rows (vllm-log) are not records and are left out.
--   gateway rows with no request ID, no trace ID and no start (NGINX's
--     combined format) are in no request (queries/requests): they count in
--     records, not_joined and no_key (every row: combined lines of one
--     second, status and path are alike, yet different requests).
-- Only tiers that have records appear; format '?' when none was logged.
WITH
tiers AS (
    SELECT 1 AS ord, 'client' AS tier, coalesce(client_format, '?') AS format,
           count(*) AS records,
           count(*) FILTER (WHERE NOT has_gateway AND NOT has_server) AS not_joined
    FROM requests WHERE has_client GROUP BY ALL
    UNION ALL
    SELECT 2, 'gateway', coalesce(gateway_format, '?'),
           count(*),
           count(*) FILTER (WHERE NOT has_client AND NOT has_server)
    FROM requests WHERE has_gateway GROUP BY ALL
    UNION ALL
    SELECT 3, 'server', coalesce(server_format, '?'),
           count(*),
           count(*) FILTER (WHERE NOT has_client AND NOT has_gateway)
    FROM requests WHERE has_server GROUP BY ALL
),
no_id AS (
    SELECT coalesce(format, '?') AS format, count(*) AS n
    FROM (SELECT DISTINCT * EXCLUDE (source_file, source_line)
          FROM server_logged
          WHERE nullif(request_id, '') IS NULL AND format IS DISTINCT FROM 'vllm-log')
    GROUP BY ALL
),
matched AS (
    SELECT server_format AS format, count(*) AS n
    FROM requests WHERE server_join = 'time'
    GROUP BY ALL
),
no_id_left AS (
    SELECT 3 AS ord, 'server' AS tier, n.format,
           greatest(n.n - coalesce(m.n, 0), 0) AS n, 0 AS no_key
    FROM no_id AS n LEFT JOIN matched AS m USING (format)
    UNION ALL
    SELECT 2, 'gateway', coalesce(format, '?'), count(*), count(*)
    FROM gateway
    WHERE nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NULL
    GROUP BY ALL
)
SELECT coalesce(t.ord, l.ord) AS ord,
       coalesce(t.tier, l.tier) AS tier,
       coalesce(t.format, l.format) AS format,
       coalesce(t.records, 0) + coalesce(l.n, 0) AS records,
       coalesce(t.not_joined, 0) + coalesce(l.n, 0) AS not_joined,
       coalesce(l.no_key, 0) AS no_key
FROM tiers AS t
FULL JOIN no_id_left AS l USING (tier, format)
WHERE coalesce(t.records, 0) + coalesce(l.n, 0) > 0
ORDER BY ord, format
