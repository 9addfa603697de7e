-- replica_phase_ci_values.sql: the pct_values input of pct_ci.sql for the
-- Replicas table (model time per output token of requests with output
-- tokens, and queue time) and for the Phases table's model time per output
-- token, each sample read once, in the cell of its request's replica
-- (replica_ci_groups, requests with a server record; 0 for none) and phase
-- (phase_ci_groups; 0 for none): (replica << 8) + phase.
-- replica_phase_ci_cells.sql counts each cell in its replica and, for
-- model per token, in its phase. The Phases table's other metrics are
-- cells of slice_phase_ci_values.sql.
-- Successful requests only (sliced_ok: completed and not aborted,
-- request_outcome in macros.sql).
UNPIVOT (
    SELECT (coalesce(CASE WHEN r.has_server THEN g.gid END, 0)::BIGINT << 8) + coalesce(p.gid, 0) AS gid,
        (CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END)::DOUBLE AS model_per_token,
        r.queue_ms::DOUBLE AS queue
    FROM sliced_ok AS r
    LEFT JOIN replica_ci_groups AS g ON g.grp[1] = r.replica
    LEFT JOIN phase_ci_groups AS p ON p.grp[1] = r.phase
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
