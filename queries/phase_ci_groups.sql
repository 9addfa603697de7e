-- phase_ci_groups.sql: the ci_groups input of pct_ci.sql for the Phases
-- table: per phase and metric of phase_dists (the temporary table of
-- phases.sql), its n, P50 and P90.
SELECT false AS grp_all, [phase] AS grp, m.metric, m.n, m.q[1] AS t50, m.q[2] AS t90
FROM (
    SELECT phase, unnest([
        {'metric': 'client_e2e', 'n': client_e2e_n, 'q': client_e2e_q},
        {'metric': 'client_ttft', 'n': client_ttft_n, 'q': client_ttft_q},
        {'metric': 'queue', 'n': queue_n, 'q': queue_q},
        {'metric': 'model', 'n': model_n, 'q': model_q},
        {'metric': 'network', 'n': network_n, 'q': network_q},
        {'metric': 'application', 'n': application_n, 'q': application_q},
        {'metric': 'model_per_token', 'n': model_per_token_n, 'q': model_per_token_q}]) AS m
    FROM phase_dists
)
