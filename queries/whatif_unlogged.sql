-- whatif_unlogged.sql: requests the gateway forwarded (it logged an
-- upstream_start_time) whose server record is missing (lost or truncated
-- in the server's log). They loaded the pool all the same, so whatif
-- replays them too, at their upstream start on the gateway's clock
-- (g_up_ns), with service times from their model's fits
-- (whatif_fits.sql) and their tokens as the client logged them; no figure
-- is shown for them, since nothing logged their server times. A replica
-- already missing its record is unknown, so they are routed by the pool's
-- policy.
WITH g AS (
    SELECT concat(gateway_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        any_value(upstream_start_time) AS upstream_start_time,
        any_value(coalesce(gateway, source_file)) AS host
    FROM gateway WHERE source_file IS NOT NULL
    GROUP BY gateway_file(source_file, rid), source_line HAVING count(*) = 1
)
SELECT r.request_id, r.model, r.start, r.prompt_tokens, r.output_tokens,
    g.host AS gateway_host, epoch_ns(g.upstream_start_time) AS g_up_ns
FROM requests AS r
JOIN g ON g.src = r.gateway_source
WHERE NOT r.has_server AND r.model IS NOT NULL AND g.upstream_start_time IS NOT NULL
ORDER BY g_up_ns, r.request_id
