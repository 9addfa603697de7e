-- slice_components.sql: per slice, the E2E components (network,
-- application, queue, model; upstream, network_application, unsplit: what
-- a missing tier leaves not split, see queries/requests) and the split of
-- server time (prefill, decode, server overhead): n, P50 and P95.
-- One row per slice of the sliced view (see slices.sql) and the
-- all-requests row (is_all). The percentiles (*_q, as quantile_cont gives
-- them) and their n (*_n; 0 without samples) come from slice_pct, the
-- table pct_ci.sql makes of slice_phase_ci_values.sql (successful requests
-- only), in memory bounded by DuckDB's memory limit; the 95% interval of
-- each P95 and which of P50 and P95 are "n too small" come from the same
-- rows (analyze's reportPercentiles, metric = the component's name).
-- slices.sql joins the three slice_*.sql tables.
WITH d AS (
    -- The rows of slice_dists.sql, which analyze creates first: each slice
    -- and the all-requests row, without reading the requests again.
    SELECT is_all, slice_key FROM slice_dists
),
q AS (
    SELECT grp_all, grp,
        any_value(n) FILTER (WHERE metric = 'network') AS network_n,
        any_value(n) FILTER (WHERE metric = 'application') AS application_n,
        any_value(n) FILTER (WHERE metric = 'queue') AS queue_n,
        any_value(n) FILTER (WHERE metric = 'model') AS model_n,
        any_value(n) FILTER (WHERE metric = 'upstream') AS upstream_n,
        any_value(n) FILTER (WHERE metric = 'network_application') AS network_application_n,
        any_value(n) FILTER (WHERE metric = 'unsplit') AS unsplit_n,
        any_value(n) FILTER (WHERE metric = 'prefill') AS prefill_n,
        any_value(n) FILTER (WHERE metric = 'decode') AS decode_n,
        any_value(n) FILTER (WHERE metric = 'server_overhead') AS server_overhead_n,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'network') AS network_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'application') AS application_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'queue') AS queue_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'model') AS model_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'upstream') AS upstream_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'network_application') AS network_application_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'unsplit') AS unsplit_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'prefill') AS prefill_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'decode') AS decode_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'server_overhead') AS server_overhead_q
    FROM slice_pct
    GROUP BY grp_all, grp
)
SELECT d.is_all,
    d.slice_key,
    coalesce(q.network_n, 0) AS network_n,
    coalesce(q.application_n, 0) AS application_n,
    coalesce(q.queue_n, 0) AS queue_n,
    coalesce(q.model_n, 0) AS model_n,
    coalesce(q.upstream_n, 0) AS upstream_n,
    coalesce(q.network_application_n, 0) AS network_application_n,
    coalesce(q.unsplit_n, 0) AS unsplit_n,
    coalesce(q.prefill_n, 0) AS prefill_n,
    coalesce(q.decode_n, 0) AS decode_n,
    coalesce(q.server_overhead_n, 0) AS server_overhead_n,
    q.network_q,
    q.application_q,
    q.queue_q,
    q.model_q,
    q.upstream_q,
    q.network_application_q,
    q.unsplit_q,
    q.prefill_q,
    q.decode_q,
    q.server_overhead_q
FROM d
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
