-- slice_components.sql: per slice, the E2E components (network,
-- application, queue, model; upstream, network_application, unsplit: what
-- a missing tier leaves not split, see requests.sql) and the split of
-- server time (prefill, decode, server overhead): n, P50 and P95.
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
        count(network_ms)                                      AS network_n,
        count(application_ms)                                  AS application_n,
        count(queue_ms)                                        AS queue_n,
        count(model_ms)                                        AS model_n,
        count(upstream_ms)                                     AS upstream_n,
        count(network_application_ms)                          AS network_application_n,
        count(unsplit_ms)                                      AS unsplit_n,
        count(prefill_ms)                                      AS prefill_n,
        count(decode_ms)                                       AS decode_n,
        count(server_overhead_ms)                              AS server_overhead_n
    FROM sliced
    GROUP BY GROUPING SETS ((slice_key), ())
    HAVING count(*) > 0
),
q AS (
    SELECT grp_all, grp,
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
SELECT d.*, q.* EXCLUDE (grp_all, grp)
FROM d
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
