-- anomalies.sql: anomalous requests counted by reason, with up to 3 example
-- request IDs each (the slowest first, by client E2E, then by ID). A request
-- with several reasons counts once under each of them.
SELECT
    reason,
    count(*) AS requests,
    list(request_id ORDER BY client_e2e_ms DESC NULLS LAST, request_id)[1:3] AS examples
FROM (
    SELECT request_id, client_e2e_ms, unnest(string_split(anomaly, '; ')) AS reason
    FROM requests
    WHERE anomaly IS NOT NULL
)
GROUP BY reason
ORDER BY requests DESC, reason
