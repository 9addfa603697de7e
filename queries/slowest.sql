-- slowest.sql: the 10 requests with the longest client E2E, with their
-- components and the 'file:line' of each tier's kept record, so a user can
-- open the raw log lines. Ties are broken by request ID.
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
    server_e2e_ms,
    anomaly,
    client_source,
    gateway_source,
    server_source
FROM requests
WHERE client_e2e_ms IS NOT NULL
ORDER BY client_e2e_ms DESC, request_id
LIMIT 10
