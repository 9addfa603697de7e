-- slice_ci_groups.sql: the ci_groups input of pct_ci.sql for the latency
-- by slice tables: per slice (and the all-requests row) and metric of
-- slice_dists (the temporary table of slice_dists.sql), its n, P50 and P90.
SELECT is_all AS grp_all, slice_key AS grp, m.metric, m.n, m.q[1] AS t50, m.q[2] AS t90
FROM (
    SELECT is_all, slice_key, unnest([
        {'metric': 'client_e2e', 'n': client_e2e_n, 'q': client_e2e_q},
        {'metric': 'gateway_e2e', 'n': gateway_e2e_n, 'q': gateway_e2e_q},
        {'metric': 'server_e2e', 'n': server_e2e_n, 'q': server_e2e_q},
        {'metric': 'client_ttft', 'n': client_ttft_n, 'q': client_ttft_q},
        {'metric': 'server_ttft', 'n': server_ttft_n, 'q': server_ttft_q},
        {'metric': 'gateway_ttft', 'n': gateway_ttft_n, 'q': gateway_ttft_q},
        {'metric': 'gateway_upstream_ttfb', 'n': gateway_upstream_ttfb_n, 'q': gateway_upstream_ttfb_q},
        {'metric': 'tps_user', 'n': tps_user_n, 'q': tps_user_q}]) AS m
    FROM slice_dists
)
