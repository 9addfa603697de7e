-- slice_phase_ci_values.sql: the pct_values input of pct_ci.sql for the
-- latency by slice tables and their attribution components, and for the
-- Phases table: every sample of the metrics of slice_dists.sql,
-- slice_components.sql and slice_ttft_components.sql (TTFTs and the TTFT
-- components of streamed requests only), the Phases table's among them,
-- each read once, in the cell of its request's slice (slice_ci_groups)
-- and phase (phase_ci_groups; 0 for none): (slice << 8) + phase.
-- slice_phase_ci_cells.sql counts each cell in its slice, in all requests
-- and, for the metrics of phases.sql, in its phase.
-- Samples are the successful requests only (sliced_ok: completed and not
-- aborted, see request_outcome in macros.sql); the n of every percentile
-- is that of pct_ci.sql's rows, so n and percentile share one sample set.
UNPIVOT (
    SELECT (g.gid::BIGINT << 8) + coalesce(p.gid, 0) AS gid,
        s.client_e2e_ms::DOUBLE AS client_e2e,
        s.gateway_e2e_ms::DOUBLE AS gateway_e2e,
        s.server_e2e_ms::DOUBLE AS server_e2e,
        (CASE WHEN s.streamed IS TRUE THEN s.client_ttft_ms END)::DOUBLE AS client_ttft,
        (CASE WHEN s.streamed IS TRUE THEN s.server_ttft_ms END)::DOUBLE AS server_ttft,
        (CASE WHEN s.streamed IS TRUE THEN s.gateway_ttft_ms END)::DOUBLE AS gateway_ttft,
        (CASE WHEN s.streamed IS TRUE THEN s.gateway_upstream_ttfb_ms END)::DOUBLE AS gateway_upstream_ttfb,
        s.tps_user::DOUBLE AS tps_user,
        s.network_ms::DOUBLE AS network,
        s.application_ms::DOUBLE AS application,
        s.queue_ms::DOUBLE AS queue,
        s.model_ms::DOUBLE AS model,
        s.upstream_ms::DOUBLE AS upstream,
        s.network_application_ms::DOUBLE AS network_application,
        s.unsplit_ms::DOUBLE AS unsplit,
        s.prefill_ms::DOUBLE AS prefill,
        s.decode_ms::DOUBLE AS decode,
        s.server_overhead_ms::DOUBLE AS server_overhead,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_prefill_ms END)::DOUBLE AS ttft_prefill,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_server_overhead_ms END)::DOUBLE AS ttft_server_overhead,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_network_ms END)::DOUBLE AS ttft_network,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_application_ms END)::DOUBLE AS ttft_application,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_queue_ms END)::DOUBLE AS ttft_queue,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_model_ms END)::DOUBLE AS ttft_model,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_network_application_ms END)::DOUBLE AS ttft_network_application,
        (CASE WHEN s.streamed IS TRUE THEN s.ttft_unsplit_ms END)::DOUBLE AS ttft_unsplit
    FROM sliced_ok AS s
    JOIN slice_ci_groups AS g ON NOT g.grp_all AND g.grp IS NOT DISTINCT FROM s.slice_key
    LEFT JOIN phase_ci_groups AS p ON p.grp[1] = s.phase
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
