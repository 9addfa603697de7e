-- slice_dists.sql: per slice, requests, window, the latency and TTFT
-- distributions, tokens/s and service-wide output tokens.
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
    count(*)                                               AS requests,
    min(start)                                             AS window_first,
    max(start)                                             AS window_last,
    count(client_e2e_ms)                                   AS client_e2e_n,
    quantile_cont(client_e2e_ms, [0.5, 0.9, 0.95, 0.99])   AS client_e2e_q,
    count(gateway_e2e_ms)                                  AS gateway_e2e_n,
    quantile_cont(gateway_e2e_ms, [0.5, 0.9, 0.95, 0.99])  AS gateway_e2e_q,
    count(server_e2e_ms)                                   AS server_e2e_n,
    quantile_cont(server_e2e_ms, [0.5, 0.9, 0.95, 0.99])   AS server_e2e_q,
    count(CASE WHEN streamed IS TRUE THEN client_ttft_ms END)
                                                           AS client_ttft_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN client_ttft_ms END, [0.5, 0.9, 0.95, 0.99])
                                                           AS client_ttft_q,
    count(CASE WHEN streamed IS TRUE THEN server_ttft_ms END)
                                                           AS server_ttft_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN server_ttft_ms END, [0.5, 0.9, 0.95, 0.99])
                                                           AS server_ttft_q,
    count(CASE WHEN streamed IS TRUE THEN gateway_ttft_ms END)
                                                           AS gateway_ttft_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN gateway_ttft_ms END, [0.5, 0.9, 0.95, 0.99])
                                                           AS gateway_ttft_q,
    count(CASE WHEN streamed IS TRUE THEN gateway_upstream_ttfb_ms END)
                                                           AS gateway_upstream_ttfb_n,
    quantile_cont(CASE WHEN streamed IS TRUE THEN gateway_upstream_ttfb_ms END, [0.5, 0.9, 0.95, 0.99])
                                                           AS gateway_upstream_ttfb_q,
    count(tps_user)                                        AS tps_user_n,
    quantile_cont(tps_user, [0.5, 0.9, 0.95, 0.99])        AS tps_user_q,
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
