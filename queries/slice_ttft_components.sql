-- slice_ttft_components.sql: per slice, the TTFT components of streamed
-- requests (with ttft_network_application and ttft_unsplit, what a missing
-- tier leaves not split, see queries/requests): n, P50 and P95.
-- One row per slice of the sliced view (see slices.sql) and the
-- all-requests row (is_all). The percentiles (*_q, as quantile_cont gives
-- them) and their n (*_n; 0 without samples) come from slice_pct, the
-- table pct_ci.sql makes of slice_phase_ci_values.sql (successful streamed
-- requests only), in memory bounded by DuckDB's memory limit; the 95%
-- interval of each P95 and which of P50 and P95 are "n too small" come
-- from the same rows (analyze's reportPercentiles, metric = the component's
-- name).
-- slices.sql joins the three slice_*.sql tables.
WITH d AS (
    -- The rows of slice_dists.sql, which analyze creates first: each slice
    -- and the all-requests row, without reading the requests again.
    SELECT is_all, slice_key FROM slice_dists
),
q AS (
    SELECT grp_all, grp,
        any_value(n) FILTER (WHERE metric = 'ttft_prefill') AS ttft_prefill_n,
        any_value(n) FILTER (WHERE metric = 'ttft_server_overhead') AS ttft_server_overhead_n,
        any_value(n) FILTER (WHERE metric = 'ttft_network') AS ttft_network_n,
        any_value(n) FILTER (WHERE metric = 'ttft_application') AS ttft_application_n,
        any_value(n) FILTER (WHERE metric = 'ttft_queue') AS ttft_queue_n,
        any_value(n) FILTER (WHERE metric = 'ttft_model') AS ttft_model_n,
        any_value(n) FILTER (WHERE metric = 'ttft_network_application') AS ttft_network_application_n,
        any_value(n) FILTER (WHERE metric = 'ttft_unsplit') AS ttft_unsplit_n,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_prefill') AS ttft_prefill_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_server_overhead') AS ttft_server_overhead_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_network') AS ttft_network_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_application') AS ttft_application_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_queue') AS ttft_queue_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_model') AS ttft_model_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_network_application') AS ttft_network_application_q,
        any_value([q[1], q[3]]) FILTER (WHERE metric = 'ttft_unsplit') AS ttft_unsplit_q
    FROM slice_pct
    GROUP BY grp_all, grp
)
SELECT d.is_all,
    d.slice_key,
    coalesce(q.ttft_prefill_n, 0) AS ttft_prefill_n,
    coalesce(q.ttft_server_overhead_n, 0) AS ttft_server_overhead_n,
    coalesce(q.ttft_network_n, 0) AS ttft_network_n,
    coalesce(q.ttft_application_n, 0) AS ttft_application_n,
    coalesce(q.ttft_queue_n, 0) AS ttft_queue_n,
    coalesce(q.ttft_model_n, 0) AS ttft_model_n,
    coalesce(q.ttft_network_application_n, 0) AS ttft_network_application_n,
    coalesce(q.ttft_unsplit_n, 0) AS ttft_unsplit_n,
    q.ttft_prefill_q,
    q.ttft_server_overhead_q,
    q.ttft_network_q,
    q.ttft_application_q,
    q.ttft_queue_q,
    q.ttft_model_q,
    q.ttft_network_application_q,
    q.ttft_unsplit_q
FROM d
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
