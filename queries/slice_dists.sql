-- slice_dists.sql: per slice, requests, window, failures, the latency and
-- TTFT distributions, tokens/s and service-wide output tokens.
-- One grouped pass over the sliced view (see slices.sql): each slice and,
-- for the empty grouping set, the all-requests row (is_all).
--   requests, window_first, window_last: every request of the slice.
--   failed_n: requests not completed (the completed column of
--     queries/requests): the error rate is failed_n / requests;
--     succeeded_n: the successful requests (completed and not aborted,
--     request_outcome in macros.sql), the only samples of the
--     percentiles; the rest, requests - failed_n - succeeded_n, completed
--     but aborted (the client left).
--   failures: the failed requests by outcome (their status as text,
--     'error' without one): [{outcome, n}], in no order (analyze sorts
--     them, most first).
-- The percentiles (*_q, as quantile_cont gives them) and their n (*_n)
-- come from slice_pct, the table pct_ci.sql makes of slice_phase_ci_values.sql
-- (successful requests only), in memory bounded by DuckDB's memory limit;
-- a metric without samples has n = 0.
-- slices.sql joins the three slice_*.sql tables.
WITH d AS (
    SELECT
        GROUPING(slice_key) = 1                                AS is_all,
        slice_key,
        count(*)                                               AS requests,
        min(start)                                             AS window_first,
        max(start)                                             AS window_last,
        count(CASE WHEN NOT completed THEN 1 END)              AS failed_n,
        count(CASE WHEN succeeded THEN 1 END)                  AS succeeded_n,
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
-- The failed requests per slice and outcome, listed per slice.
f1 AS (
    SELECT GROUPING(slice_key) = 1 AS is_all, slice_key, outcome, count(*) AS n
    FROM sliced
    WHERE NOT completed
    GROUP BY GROUPING SETS ((slice_key, outcome), (outcome))
),
f AS (
    SELECT is_all, slice_key,
        list({'outcome': outcome, 'n': n}) AS failures
    FROM f1
    GROUP BY is_all, slice_key
),
q AS (
    SELECT grp_all, grp,
        any_value(n) FILTER (WHERE metric = 'client_e2e') AS client_e2e_n,
        any_value(n) FILTER (WHERE metric = 'gateway_e2e') AS gateway_e2e_n,
        any_value(n) FILTER (WHERE metric = 'server_e2e') AS server_e2e_n,
        any_value(n) FILTER (WHERE metric = 'client_ttft') AS client_ttft_n,
        any_value(n) FILTER (WHERE metric = 'server_ttft') AS server_ttft_n,
        any_value(n) FILTER (WHERE metric = 'gateway_ttft') AS gateway_ttft_n,
        any_value(n) FILTER (WHERE metric = 'gateway_upstream_ttfb') AS gateway_upstream_ttfb_n,
        any_value(n) FILTER (WHERE metric = 'tps_user') AS tps_user_n,
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
SELECT d.*, f.failures,
    coalesce(q.client_e2e_n, 0) AS client_e2e_n,
    coalesce(q.gateway_e2e_n, 0) AS gateway_e2e_n,
    coalesce(q.server_e2e_n, 0) AS server_e2e_n,
    coalesce(q.client_ttft_n, 0) AS client_ttft_n,
    coalesce(q.server_ttft_n, 0) AS server_ttft_n,
    coalesce(q.gateway_ttft_n, 0) AS gateway_ttft_n,
    coalesce(q.gateway_upstream_ttfb_n, 0) AS gateway_upstream_ttfb_n,
    coalesce(q.tps_user_n, 0) AS tps_user_n,
    q.* EXCLUDE (grp_all, grp, client_e2e_n, gateway_e2e_n, server_e2e_n, client_ttft_n,
                 server_ttft_n, gateway_ttft_n, gateway_upstream_ttfb_n, tps_user_n)
FROM d
LEFT JOIN f ON f.is_all = d.is_all AND f.slice_key IS NOT DISTINCT FROM d.slice_key
LEFT JOIN q ON q.grp_all = d.is_all AND q.grp IS NOT DISTINCT FROM d.slice_key
