-- window_ci_groups.sql: the ci_groups input of pct_ci.sql for the time
-- series: per window of timeseries (the temporary table of timeseries.sql)
-- and metric, its n, P50 and P90. A window's group is
-- [epoch_ns(window_start)] as text.
SELECT false AS grp_all, [epoch_ns(window_start)::VARCHAR] AS grp, m.metric, m.n, m.q[1] AS t50, m.q[2] AS t90
FROM (
    SELECT window_start, unnest([
        {'metric': 'client_e2e', 'n': client_e2e_n, 'q': client_e2e_q},
        {'metric': 'queue', 'n': queue_n, 'q': queue_q},
        {'metric': 'model', 'n': model_n, 'q': model_q}]) AS m
    FROM timeseries
)
WHERE m.n > 0
