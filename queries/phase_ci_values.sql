-- phase_ci_values.sql: the pct_values input of pct_ci.sql for the Phases
-- table's own samples: model time per output token (requests with output
-- tokens), in its phase's group of phase_ci_groups. Its other metrics
-- (client E2E and TTFT, the components) are those of the slice tables,
-- read once for both as the cells of slice_phase_ci_values.sql.
-- Successful requests only (sliced_ok: completed and not aborted,
-- request_outcome in macros.sql).
SELECT g.gid, 'model_per_token' AS metric,
    (CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END)::DOUBLE AS value
FROM sliced_ok AS r
JOIN phase_ci_groups AS g ON g.grp[1] = r.phase
