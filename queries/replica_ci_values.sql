-- replica_ci_values.sql: the pct_values input of pct_ci.sql for the
-- Replicas table: model time per output token (requests with output
-- tokens) and queue time, in its replica's group of replica_ci_groups.
-- Successful requests only (sliced_ok: completed and not aborted,
-- request_outcome in macros.sql).
UNPIVOT (
    SELECT g.gid,
        (CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END)::DOUBLE AS model_per_token,
        r.queue_ms::DOUBLE AS queue
    FROM sliced_ok AS r
    JOIN replica_ci_groups AS g ON g.grp[1] = r.replica
    WHERE r.has_server
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
