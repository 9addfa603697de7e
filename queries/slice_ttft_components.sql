-- slice_ttft_components.sql: per slice, the TTFT components of streamed
-- requests: n, P50, P90 and P95 (the report shows P50 and P95; P90 is
-- the threshold of their intervals, see pct_ci.sql).
-- One grouped pass over the sliced view (see slices.sql): each slice and,
-- for the empty grouping set, the all-requests row (is_all). Percentiles
-- are quantile_cont with their own n; conditional samples are CASE WHEN
-- ... THEN x END (NULL is no sample). slices.sql joins the three
-- slice_*.sql tables.
--
-- Why three statements: DuckDB holds every sample of a quantile in memory
-- (holistic aggregate states do not spill), so each statement takes only
-- a third of the metrics and frees its samples before the next runs.
SELECT
    GROUPING(slice_key) = 1                                AS is_all,
    slice_key,
    count(CASE WHEN streamed IS TRUE THEN ttft_prefill_ms END)
                                                           AS ttft_prefill_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_prefill_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_prefill_q,
    count(CASE WHEN streamed IS TRUE THEN ttft_server_overhead_ms END)
                                                           AS ttft_server_overhead_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_server_overhead_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_server_overhead_q,
    count(CASE WHEN streamed IS TRUE THEN ttft_network_ms END)
                                                           AS ttft_network_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_network_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_network_q,
    count(CASE WHEN streamed IS TRUE THEN ttft_application_ms END)
                                                           AS ttft_application_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_application_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_application_q,
    count(CASE WHEN streamed IS TRUE THEN ttft_queue_ms END)
                                                           AS ttft_queue_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_queue_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_queue_q,
    count(CASE WHEN streamed IS TRUE THEN ttft_model_ms END)
                                                           AS ttft_model_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN ttft_model_ms END, [0.5, 0.9, 0.95])
                                                           AS ttft_model_q
FROM sliced
GROUP BY GROUPING SETS ((slice_key), ())
HAVING count(*) > 0
