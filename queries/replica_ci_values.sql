-- replica_ci_values.sql: the ci_values input of pct_ci.sql for the
-- Replicas table: model time per output token (requests with output
-- tokens) and queue time, by replica.
SELECT false AS grp_all, [replica] AS grp, metric, value
FROM (
    UNPIVOT (
        SELECT replica,
            (CASE WHEN output_tokens > 0 THEN model_ms / output_tokens END)::DOUBLE AS model_per_token,
            queue_ms::DOUBLE AS queue
        FROM requests
        WHERE has_server AND replica IS NOT NULL
    ) ON COLUMNS(* EXCLUDE (replica)) INTO NAME metric VALUE value
)
