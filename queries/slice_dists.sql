-- slice_dists.sql: per slice, requests, window, the latency and TTFT
-- distributions, tokens/s and service-wide output tokens.
-- One grouped pass over the sliced view (see slices.sql): each slice and,
-- for the empty grouping set, the all-requests row (is_all). Each metric
-- has its own n; conditional samples are CASE WHEN ... THEN x END (NULL
-- is no sample). The percentiles (*_q, as quantile_cont gives them) come
-- from slice_pct, the table pct_ci.sql makes of slice_ci_values.sql (the
-- same sample sets), in memory bounded by DuckDB's memory limit.
-- slices.sql joins the three slice_*.sql tables.
WITH d AS (
    SELECT
        GROUPING(slice_key) = 1                                AS is_all,
        slice_key,
        count(*)                                               AS requests,
        min(start)                                             AS window_first,
        max(start)                                             AS window_last,
        count(client_e2e_ms)                                   AS client_e2e_n,
        count(gateway_e2e_ms)                                  AS gateway_e2e_n,
        count(server_e2e_ms)                                   AS server_e2e_n,
        count(CASE WHEN streamed IS TRUE THEN client_ttft_ms END)
                                                               AS client_ttft_n,
        count(CASE WHEN streamed IS TRUE THEN server_ttft_ms END)
                                                               AS server_ttft_n,
        count(CASE WHEN streamed IS TRUE THEN gateway_ttft_ms END)
                                                               AS gateway_ttft_n,
        count(CASE WHEN streamed IS TRUE THEN gateway_upstream_ttfb_ms END)
                                                               AS gateway_upstream_ttfb_n,
        count(tps_user)                                        AS tps_user_n,
        count(CASE WHEN completed THEN output_tokens END)      AS completed_n,
        coalesce(sum(CASE WHEN completed THEN output_tokens END), 0)::BIGINT
                                                               AS completed_output_tokens,
        (epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9    AS window_s,
        CASE WHEN epoch_ns(max(start)) > epoch_ns(min(start))
             THEN coalesce(sum(CASE WHEN completed THEN output_tokens END), 0)
                  / ((epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9)
        END                                                    AS service_tps
    FROM sliced
    GROUP BY GROUPING SETS ((slice_key), ())
    HAVING count(*) > 0
),
q AS (
    SELECT grp_all, grp,
        any_value(q) FILTER (WHERE metric = 'client_e2e') AS client_e2e_q,
        any_value(q) FILTER (WHERE metric = 'gateway_e2e') AS gateway_e2e_q,
        any_value(q) FILTER (WHERE metric = 'server_e2e') AS server_e2e_q,
        any_value(q) FILTER (WHERE metric = 'client_ttft') AS client_ttft_q,
        any_value(q) FILTER (WHERE metric = 'server_ttft') AS server_ttft_q,
        any_value(q) FILTER (WHERE metric = 'gateway_ttft') AS gateway_ttft_q,
        any_value(q) FILTER (WHERE metric = 'gateway_upstream_ttfb') AS gateway_upstream_ttfb_q,
        any_value(q) FILTER (WHERE metric = 'tps_user') AS tps_user_q
    FROM slice_pct
    GROUP BY grp_all, grp
)
SELECT d.*, q.* EXCLUDE (grp_all, grp)
FROM d
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
