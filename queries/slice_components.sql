-- slice_components.sql: per slice, the E2E components (network,
-- application, queue, model) and the split of server time (prefill,
-- decode, server overhead): n, P50, P90 and P95 (the report shows P50
-- and P95; P90 is the threshold of their intervals, see pct_ci.sql).
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
    count(network_ms)                                      AS network_n,
    quantile_cont(network_ms, [0.5, 0.9, 0.95])                 AS network_q,
    count(application_ms)                                  AS application_n,
    quantile_cont(application_ms, [0.5, 0.9, 0.95])             AS application_q,
    count(queue_ms)                                        AS queue_n,
    quantile_cont(queue_ms, [0.5, 0.9, 0.95])                   AS queue_q,
    count(model_ms)                                        AS model_n,
    quantile_cont(model_ms, [0.5, 0.9, 0.95])                   AS model_q,
    count(prefill_ms)                                      AS prefill_n,
    quantile_cont(prefill_ms, [0.5, 0.9, 0.95])                 AS prefill_q,
    count(decode_ms)                                       AS decode_n,
    quantile_cont(decode_ms, [0.5, 0.9, 0.95])                  AS decode_q,
    count(server_overhead_ms)                              AS server_overhead_n,
    quantile_cont(server_overhead_ms, [0.5, 0.9, 0.95])         AS server_overhead_q
FROM sliced
GROUP BY GROUPING SETS ((slice_key), ())
HAVING count(*) > 0
