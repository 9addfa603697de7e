-- slice_component_ci_values.sql: the ci_values input of pct_ci.sql for
-- the attribution tables: every sample of slice_components.sql and
-- slice_ttft_components.sql (the same sample sets: TTFT components of
-- streamed requests only), once in its slice and once in the
-- all-requests row.
WITH v AS (
    UNPIVOT (
        SELECT slice_key,
            network_ms::DOUBLE AS network,
            application_ms::DOUBLE AS application,
            queue_ms::DOUBLE AS queue,
            model_ms::DOUBLE AS model,
            prefill_ms::DOUBLE AS prefill,
            decode_ms::DOUBLE AS decode,
            server_overhead_ms::DOUBLE AS server_overhead,
            (CASE WHEN streamed IS TRUE THEN ttft_prefill_ms END)::DOUBLE AS ttft_prefill,
            (CASE WHEN streamed IS TRUE THEN ttft_server_overhead_ms END)::DOUBLE AS ttft_server_overhead,
            (CASE WHEN streamed IS TRUE THEN ttft_network_ms END)::DOUBLE AS ttft_network,
            (CASE WHEN streamed IS TRUE THEN ttft_application_ms END)::DOUBLE AS ttft_application,
            (CASE WHEN streamed IS TRUE THEN ttft_queue_ms END)::DOUBLE AS ttft_queue,
            (CASE WHEN streamed IS TRUE THEN ttft_model_ms END)::DOUBLE AS ttft_model
        FROM sliced
    ) ON COLUMNS(* EXCLUDE (slice_key)) INTO NAME metric VALUE value
)
SELECT false AS grp_all, slice_key AS grp, metric, value FROM v
UNION ALL
SELECT true AS grp_all, NULL::VARCHAR[] AS grp, metric, value FROM v
