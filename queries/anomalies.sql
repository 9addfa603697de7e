-- anomalies.sql: anomalous requests counted by reason, with up to 3 example
-- request IDs each (the slowest first, by client E2E, then by ID). A request
-- with several reasons counts once under each of them.
-- The examples are ranked by a window (a sort, which spills) and only the
-- first 3 of each reason are listed, so no reason's requests are ever held
-- in one aggregate's state.
WITH a AS (
    SELECT request_id, client_e2e_ms, unnest(string_split(anomaly, '; ')) AS reason
    FROM requests
    WHERE anomaly IS NOT NULL
),
r AS (
    SELECT reason, request_id,
        row_number() OVER (PARTITION BY reason ORDER BY client_e2e_ms DESC NULLS LAST, request_id) AS rk
    FROM a
)
SELECT
    reason,
    count(*) AS requests,
    list(request_id ORDER BY rk) FILTER (WHERE rk <= 3) AS examples
FROM r
GROUP BY reason
ORDER BY requests DESC, reason
