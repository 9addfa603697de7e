-- phase_ci_values.sql: the pct_values input of pct_ci.sql for the Phases
-- table: every sample of phases.sql's metrics (client TTFT of streamed
-- requests, model per token of requests with output tokens), in its
-- phase's group of phase_ci_groups. Successful requests only (sliced_ok:
-- completed and not aborted, request_outcome in macros.sql).
UNPIVOT (
    SELECT g.gid,
        r.client_e2e_ms::DOUBLE AS client_e2e,
        (CASE WHEN r.streamed IS TRUE THEN r.client_ttft_ms END)::DOUBLE AS client_ttft,
        r.queue_ms::DOUBLE AS queue,
        r.model_ms::DOUBLE AS model,
        r.network_ms::DOUBLE AS network,
        r.application_ms::DOUBLE AS application,
        r.upstream_ms::DOUBLE AS upstream,
        r.network_application_ms::DOUBLE AS network_application,
        r.unsplit_ms::DOUBLE AS unsplit,
        (CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END)::DOUBLE AS model_per_token
    FROM sliced_ok AS r
    JOIN phase_ci_groups AS g ON g.grp[1] = r.phase
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
