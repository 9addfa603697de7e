-- explain_pick.sql: the requests explain picks when no request ID is
-- given: those matching every filter given ($1 client, $2 region, $3
-- model; NULL: any), starting in [$4, $5) when given, slowest client E2E
-- first (then gateway E2E, then server E2E, for requests without a client
-- record), at most $6.
SELECT request_id
FROM requests
WHERE ($1::VARCHAR IS NULL OR client = $1)
  AND ($2::VARCHAR IS NULL OR region = $2)
  AND ($3::VARCHAR IS NULL OR model = $3)
  AND ($4::TIMESTAMP_NS IS NULL OR start >= $4)
  AND ($5::TIMESTAMP_NS IS NULL OR start < $5)
ORDER BY coalesce(client_e2e_ms, gateway_e2e_ms, server_e2e_ms) DESC NULLS LAST, request_id
LIMIT $6
