-- slice_ttft_component_ci_groups.sql: the ci_groups input of pct_ci.sql
-- for the TTFT tables of the attribution: per slice (and the all-requests
-- row) and component of slice_ttft_components (the temporary table of the
-- query of that name), its n, P50 and P90. The metric is the component's
-- name as analyze reads it ("ttft_queue", ...).
SELECT is_all AS grp_all, slice_key AS grp, m.metric, m.n, m.q[1] AS t50, m.q[2] AS t90
FROM (
    SELECT is_all, slice_key, unnest([
        {'metric': 'ttft_prefill', 'n': ttft_prefill_n, 'q': ttft_prefill_q},
        {'metric': 'ttft_server_overhead', 'n': ttft_server_overhead_n, 'q': ttft_server_overhead_q},
        {'metric': 'ttft_network', 'n': ttft_network_n, 'q': ttft_network_q},
        {'metric': 'ttft_application', 'n': ttft_application_n, 'q': ttft_application_q},
        {'metric': 'ttft_queue', 'n': ttft_queue_n, 'q': ttft_queue_q},
        {'metric': 'ttft_model', 'n': ttft_model_n, 'q': ttft_model_q}]) AS m
    FROM slice_ttft_components
)
