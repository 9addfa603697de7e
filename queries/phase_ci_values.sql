-- phase_ci_values.sql: the ci_values input of pct_ci.sql for the Phases
-- table: every sample of phases.sql's metrics (client TTFT of streamed
-- requests, model per token of requests with output tokens), by phase.
SELECT false AS grp_all, [phase] AS grp, metric, value
FROM (
    UNPIVOT (
        SELECT phase,
            client_e2e_ms::DOUBLE AS client_e2e,
            (CASE WHEN streamed IS TRUE THEN client_ttft_ms END)::DOUBLE AS client_ttft,
            queue_ms::DOUBLE AS queue,
            model_ms::DOUBLE AS model,
            network_ms::DOUBLE AS network,
            application_ms::DOUBLE AS application,
            (CASE WHEN output_tokens > 0 THEN model_ms / output_tokens END)::DOUBLE AS model_per_token
        FROM requests
        WHERE phase IS NOT NULL
    ) ON COLUMNS(* EXCLUDE (phase)) INTO NAME metric VALUE value
)
