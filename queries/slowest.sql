-- slowest.sql: the 10 requests with the longest client E2E, with their
-- components and the 'file:line' of each tier's kept record, so a user can
-- open the raw log lines. Ties are broken by request ID. unsplit_ms is the
-- time a missing tier leaves not split (upstream_ms, network_application_ms
-- or unsplit_ms of queries/requests: at most one is set), unsplit_what the
-- components it stands for.
SELECT
    request_id,
    model,
    use_case,
    start,
    client_e2e_ms,
    network_ms,
    application_ms,
    queue_ms,
    model_ms,
    coalesce(upstream_ms, network_application_ms, unsplit_ms) AS unsplit_ms,
    CASE WHEN upstream_ms IS NOT NULL THEN 'application + queue + model'
         WHEN network_application_ms IS NOT NULL THEN 'network + application'
         WHEN unsplit_ms IS NOT NULL THEN 'network + application + queue + model' END AS unsplit_what,
    server_e2e_ms,
    anomaly,
    client_source,
    gateway_source,
    server_source
FROM requests
WHERE client_e2e_ms IS NOT NULL
ORDER BY client_e2e_ms DESC, request_id
LIMIT 10
