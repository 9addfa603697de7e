-- replica_ci_groups.sql: the ci_groups input of pct_ci.sql for the
-- Replicas table: per replica its model time per output token and queue
-- samples, n and P50 (as replicas.sql counts them).
SELECT false AS grp_all, [replica] AS grp, m.metric, m.n, m.t50, NULL::DOUBLE AS t90
FROM (
    SELECT replica, unnest([
        {'metric': 'model_per_token', 'n': model_per_token_n, 't50': model_per_token_p50},
        {'metric': 'queue', 'n': queue_n, 't50': queue_p50}]) AS m
    FROM (
        SELECT replica,
            count(CASE WHEN output_tokens > 0 THEN model_ms / output_tokens END) AS model_per_token_n,
            quantile_cont(CASE WHEN output_tokens > 0 THEN model_ms / output_tokens END, 0.5) AS model_per_token_p50,
            count(queue_ms) AS queue_n,
            quantile_cont(queue_ms, 0.5) AS queue_p50
        FROM requests
        WHERE has_server AND replica IS NOT NULL
        GROUP BY replica
    )
)
