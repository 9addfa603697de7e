-- slice_ttft_components.sql: per slice, the TTFT components of streamed
-- requests (with ttft_network_application and ttft_unsplit, what a missing
-- tier leaves not split, see requests.sql): n, P50 and P95.
-- One grouped pass over the sliced view (see slices.sql): each slice and,
-- for the empty grouping set, the all-requests row (is_all). Each metric
-- has its own n; conditional samples are CASE WHEN ... THEN x END (NULL
-- is no sample). The percentiles (*_q, as quantile_cont gives them) come
-- from slice_pct, the table pct_ci.sql makes of slice_ci_values.sql (the
-- same sample sets), in memory bounded by DuckDB's memory limit; the
-- 95% interval of each P95 and which of P50 and P95 are "n too small"
-- come from the same rows (analyze's pctIntervals, metric = the
-- component's name).
-- slices.sql joins the three slice_*.sql tables.
WITH d AS (
    SELECT
        GROUPING(slice_key) = 1                                AS is_all,
        slice_key,
        count(CASE WHEN streamed IS TRUE THEN ttft_prefill_ms END)
                                                               AS ttft_prefill_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_server_overhead_ms END)
                                                               AS ttft_server_overhead_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_network_ms END)
                                                               AS ttft_network_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_application_ms END)
                                                               AS ttft_application_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_queue_ms END)
                                                               AS ttft_queue_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_model_ms END)
                                                               AS ttft_model_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_network_application_ms END)
                                                               AS ttft_network_application_n,
        count(CASE WHEN streamed IS TRUE THEN ttft_unsplit_ms END)
                                                               AS ttft_unsplit_n
    FROM sliced
    GROUP BY GROUPING SETS ((slice_key), ())
    HAVING count(*) > 0
),
q AS (
    SELECT grp_all, grp,
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
SELECT d.*, q.* EXCLUDE (grp_all, grp)
FROM d
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
