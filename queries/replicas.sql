-- replicas.sql: one row per inference replica (requests with a server
-- record), so a replica that joined late or served slowly stands out.
--   first_start: the earliest start of its requests (the first tier on each
--     request's path, as for windows), i.e. roughly when it joined.
--   model_per_token: model_ms / output_tokens over requests with
--     output_tokens > 0, P50 and P95 by quantile_cont, with n.
--   queue: P95 of queue_ms, with n.
--   cold: requests detected as cold (phase = 'cold', see requests.sql).
--   max_concurrency: most requests in flight at once at any arrival.
SELECT
    replica,
    any_value(model)                                              AS model,
    count(*)                                                      AS requests,
    min(start)                                                    AS first_start,
    max(start)                                                    AS last_start,
    count(*) FILTER (WHERE phase = 'cold')                        AS cold,
    count(model_ms / output_tokens) FILTER (WHERE output_tokens > 0) AS model_per_token_n,
    quantile_cont(model_ms / output_tokens, [0.5, 0.95])
        FILTER (WHERE output_tokens > 0)                          AS model_per_token_q,
    count(queue_ms)                                               AS queue_n,
    quantile_cont(queue_ms, 0.95)                                 AS queue_p95,
    max(concurrency)                                              AS max_concurrency
FROM requests
WHERE has_server AND replica IS NOT NULL
GROUP BY replica
ORDER BY first_start, replica
