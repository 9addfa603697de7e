-- slice_component_ci_values.sql: the ci_values input of pct_ci.sql for
-- the E2E tables of the attribution: every sample of slice_components.sql,
-- once in its slice and once in the all-requests row.
-- Each request is read once: a cross join with both groupings (its slice,
-- all requests) streams into the UNPIVOT, where a CTE read twice would be
-- materialized whole.
UNPIVOT (
    SELECT a.grp_all, CASE WHEN NOT a.grp_all THEN r.slice_key END AS grp,
            network_ms::DOUBLE AS network,
            application_ms::DOUBLE AS application,
            queue_ms::DOUBLE AS queue,
            model_ms::DOUBLE AS model,
            prefill_ms::DOUBLE AS prefill,
            decode_ms::DOUBLE AS decode,
            server_overhead_ms::DOUBLE AS server_overhead
    FROM sliced AS r, (VALUES (false), (true)) AS a(grp_all)
) ON COLUMNS(* EXCLUDE (grp_all, grp)) INTO NAME metric VALUE value
