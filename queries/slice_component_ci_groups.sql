-- slice_component_ci_groups.sql: the ci_groups input of pct_ci.sql for the
-- E2E tables of the attribution: per slice (and the all-requests row) and
-- component of slice_components (the temporary table of the query of that
-- name), its n, P50 and P90. The metric is the component's name as analyze
-- reads it ("queue", "prefill", ...). The TTFT components are
-- slice_ttft_component_ci_*.sql: two runs of pct_ci.sql, so that each
-- ranks the tails of half the metrics at a time.
SELECT is_all AS grp_all, slice_key AS grp, m.metric, m.n, m.q[1] AS t50, m.q[2] AS t90
FROM (
    SELECT is_all, slice_key, unnest([
        {'metric': 'network', 'n': network_n, 'q': network_q},
        {'metric': 'application', 'n': application_n, 'q': application_q},
        {'metric': 'queue', 'n': queue_n, 'q': queue_q},
        {'metric': 'model', 'n': model_n, 'q': model_q},
        {'metric': 'prefill', 'n': prefill_n, 'q': prefill_q},
        {'metric': 'decode', 'n': decode_n, 'q': decode_q},
        {'metric': 'server_overhead', 'n': server_overhead_n, 'q': server_overhead_q}]) AS m
    FROM slice_components
)
