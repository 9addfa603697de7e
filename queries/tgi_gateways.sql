-- tgi_gateways.sql: the gateway side (match_g) of the time match of TGI
-- and Ollama JSON rows (tgi_rows.sql, match_t): the kept record per request
-- ID (latest start, as in queries/requests) whose request ID has no timing
-- server record of its own (those are already joined), with the span the
-- gateway logged around the upstream call (upstream start and end where it
-- logged both, else its own start and end; match_candidates.sql). g_key is
-- the request ID, which a matched row takes (server_matched.sql). Without
-- TGI rows, no gateway record is read.
SELECT g.request_id AS g_key,
       coalesce(g.gateway, g.source_file)
         || CASE WHEN g.upstream_start_time IS NOT NULL AND g.upstream_end_time IS NOT NULL
                 THEN '' ELSE ' (start/end)' END AS g_host,
       g.upstream,
       CASE WHEN g.upstream_start_time IS NOT NULL AND g.upstream_end_time IS NOT NULL
            THEN epoch_ns(g.upstream_start_time) ELSE epoch_ns(g.start_time) END AS g_start,
       CASE WHEN g.upstream_start_time IS NOT NULL AND g.upstream_end_time IS NOT NULL
            THEN epoch_ns(g.upstream_end_time) ELSE epoch_ns(g.end_time) END AS g_end
FROM gateway AS g
WHERE EXISTS (SELECT 1 FROM match_t)
  AND nullif(g.request_id, '') IS NOT NULL
  AND ((g.upstream_start_time IS NOT NULL AND g.upstream_end_time IS NOT NULL)
       OR (g.start_time IS NOT NULL AND g.end_time IS NOT NULL))
  AND NOT EXISTS (SELECT 1 FROM server_logged AS s
                  WHERE s.request_id = g.request_id AND s.format IS DISTINCT FROM 'vllm-log')
QUALIFY row_number() OVER (
    PARTITION BY g.request_id
    ORDER BY g.start_time DESC NULLS LAST, g.end_time DESC NULLS LAST,
             g.source_file DESC, g.source_line DESC) = 1
