-- replicas.sql: one row per inference replica (requests with a server
-- record), so a replica that joined late or served slowly stands out.
--   first_start: the earliest start of its requests (the first tier on each
--     request's path, as for windows), i.e. roughly when it joined.
--   model_per_token: model_ms / output_tokens over requests with
--     output_tokens > 0, P50 and P95 as quantile_cont gives them, with n.
--   queue: P95 of queue_ms, with n.
--   cold: requests detected as cold (phase = 'cold', see queries/requests).
--   max_concurrency: most requests in flight at once at any arrival.
-- The percentiles and their n (0 without samples) come from replica_pct,
-- the table pct_ci.sql makes of replica_phase_ci_values.sql: successful
-- requests only (completed and not aborted, request_outcome in
-- macros.sql); requests counts every request of the replica.
WITH d AS (
    SELECT
        replica,
        any_value(model)                                              AS model,
        count(*)                                                      AS requests,
        min(start)                                                    AS first_start,
        max(start)                                                    AS last_start,
        count(*) FILTER (WHERE phase = 'cold')                        AS cold,
        max(concurrency)                                              AS max_concurrency
    FROM requests
    WHERE has_server AND replica IS NOT NULL
    GROUP BY replica
),
q AS (
    SELECT grp,
        any_value(n) FILTER (WHERE metric = 'model_per_token')            AS model_per_token_n,
        any_value(n) FILTER (WHERE metric = 'queue')                      AS queue_n,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'model_per_token') AS model_per_token_q,
        any_value(q[3]) FILTER (WHERE metric = 'queue')                   AS queue_p95
    FROM replica_pct
    GROUP BY grp
)
SELECT d.replica, d.model, d.requests, d.first_start, d.last_start, d.cold,
    coalesce(q.model_per_token_n, 0) AS model_per_token_n, q.model_per_token_q,
    coalesce(q.queue_n, 0) AS queue_n, q.queue_p95, d.max_concurrency
FROM d LEFT JOIN q ON q.grp = [d.replica]
ORDER BY d.first_start, d.replica
