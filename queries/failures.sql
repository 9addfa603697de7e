-- failures.sql: the requests left out of every latency percentile, one
-- row per outcome (request_outcome in macros.sql) over all requests of
-- the sliced view: a failed request's status ('500', '503', '429',
-- '408', ...; 'error' without a status), or 'aborted' for a completed
-- request whose client left. failed: not completed, so counted in the
-- error rate. requests: how many; their own client, gateway and server
-- E2E (P50/P90/P95/P99 as quantile_cont gives them, with n) come from
-- failure_pct, the table pct_ci.sql makes of failure_ci_values.sql. A
-- failure is often fast (a 429, a 503 of an overloaded server) or cut
-- short (a timeout): its times are shown here, never mixed into the
-- latency of the successful requests.
-- Failed outcomes first, then most requests first, then by outcome.
WITH d AS (
    SELECT outcome, bool_and(NOT completed) AS failed, count(*) AS requests
    FROM sliced
    WHERE NOT succeeded
    GROUP BY outcome
),
q AS (
    SELECT grp,
        any_value(n) FILTER (WHERE metric = 'client_e2e')  AS client_e2e_n,
        any_value(n) FILTER (WHERE metric = 'gateway_e2e') AS gateway_e2e_n,
        any_value(n) FILTER (WHERE metric = 'server_e2e')  AS server_e2e_n,
        any_value(q) FILTER (WHERE metric = 'client_e2e')  AS client_e2e_q,
        any_value(q) FILTER (WHERE metric = 'gateway_e2e') AS gateway_e2e_q,
        any_value(q) FILTER (WHERE metric = 'server_e2e')  AS server_e2e_q
    FROM failure_pct
    GROUP BY grp
)
SELECT d.outcome, d.failed, d.requests,
    coalesce(q.client_e2e_n, 0) AS client_e2e_n, q.client_e2e_q,
    coalesce(q.gateway_e2e_n, 0) AS gateway_e2e_n, q.gateway_e2e_q,
    coalesce(q.server_e2e_n, 0) AS server_e2e_n, q.server_e2e_q
FROM d
LEFT JOIN q ON q.grp = [d.outcome]
ORDER BY d.failed DESC, d.requests DESC, d.outcome
