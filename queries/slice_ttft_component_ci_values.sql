-- slice_ttft_component_ci_values.sql: the ci_values input of pct_ci.sql
-- for the TTFT tables of the attribution: every sample of
-- slice_ttft_components.sql (streamed requests only), once in its slice
-- and once in the all-requests row.
-- Each request is read once: a cross join with both groupings (its slice,
-- all requests) streams into the UNPIVOT, where a CTE read twice would be
-- materialized whole.
UNPIVOT (
    SELECT a.grp_all, CASE WHEN NOT a.grp_all THEN r.slice_key END AS grp,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_prefill_ms END)::DOUBLE AS ttft_prefill,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_server_overhead_ms END)::DOUBLE AS ttft_server_overhead,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_network_ms END)::DOUBLE AS ttft_network,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_application_ms END)::DOUBLE AS ttft_application,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_queue_ms END)::DOUBLE AS ttft_queue,
            (CASE WHEN r.streamed IS TRUE THEN r.ttft_model_ms END)::DOUBLE AS ttft_model
    FROM sliced AS r, (VALUES (false), (true)) AS a(grp_all)
) ON COLUMNS(* EXCLUDE (grp_all, grp)) INTO NAME metric VALUE value
