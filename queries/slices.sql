-- slices.sql: latency distributions and attribution per slice, over the
-- sliced view: the requests view plus slice_key, a VARCHAR[] of the
-- --by columns (whitelisted by analyze). Every request also lands in the
-- "all requests" row (is_all, slice_key NULL).
--
-- Percentiles are quantile_cont: linear interpolation between the two
-- nearest ranks (for 1..10, P50 = 5.5 and P90 = 9.1). Each metric has its
-- own sample count (*_n): NULL values are not samples.
--
-- Sample sets:
--   client_e2e, gateway_e2e, server_e2e, network, application, queue, model:
--     every request where the value exists (streamed or not).
--   client_ttft, gateway_ttft, gateway_upstream_ttfb, server_ttft, ttft_*:
--     streamed requests only (the client record says streamed = true);
--     tps_user is streamed-only by definition.
--   service-wide output tokens/s: sum of output_tokens of completed requests
--     (the completed column of requests.sql: status 200-299, or no status
--     and no error) divided by the window length (last start - first
--     start, seconds); NULL when the window is empty.
--   slowest 5% (tail_*): requests whose client_e2e_ms is above the slice's
--     P95 client E2E; for ttft components, streamed requests whose
--     client_ttft_ms is above the slice's P95 client TTFT. tail means are
--     plain averages over those requests having the component.
--   prefill, decode, server_overhead (and ttft_prefill,
--     ttft_server_overhead for streamed requests): the split of server time
--     that rolls up into model (prefill, decode) and application (server
--     overhead); every request where the value exists.
--   *_formats: the server formats (server_format) of the requests behind
--     each server-derived figure, so formats are never mixed silently.
WITH
expanded AS (
    SELECT *, false AS is_all FROM sliced
    UNION ALL
    SELECT * REPLACE (NULL::VARCHAR[] AS slice_key), true AS is_all FROM sliced
),
x AS (
    SELECT *,
        quantile_cont(client_e2e_ms, 0.95)
            OVER (PARTITION BY is_all, slice_key) AS e2e_tail_threshold,
        quantile_cont(CASE WHEN streamed IS TRUE THEN client_ttft_ms END, 0.95)
            OVER (PARTITION BY is_all, slice_key) AS ttft_tail_threshold
    FROM expanded
),
y AS (
    SELECT *,
        client_e2e_ms > e2e_tail_threshold AS in_e2e_tail,
        streamed IS TRUE AND client_ttft_ms > ttft_tail_threshold AS in_ttft_tail
    FROM x
)
SELECT
    is_all,
    slice_key,
    count(*)   AS requests,
    min(start) AS window_first,
    max(start) AS window_last,

    count(client_e2e_ms)                                   AS client_e2e_n,
    quantile_cont(client_e2e_ms, [0.5, 0.9, 0.95, 0.99])   AS client_e2e_q,
    count(gateway_e2e_ms)                                  AS gateway_e2e_n,
    quantile_cont(gateway_e2e_ms, [0.5, 0.9, 0.95, 0.99])  AS gateway_e2e_q,
    count(server_e2e_ms)                                   AS server_e2e_n,
    quantile_cont(server_e2e_ms, [0.5, 0.9, 0.95, 0.99])   AS server_e2e_q,
    count(client_ttft_ms) FILTER (WHERE streamed IS TRUE)  AS client_ttft_n,
    quantile_cont(client_ttft_ms, [0.5, 0.9, 0.95, 0.99])
        FILTER (WHERE streamed IS TRUE)                    AS client_ttft_q,
    count(server_ttft_ms) FILTER (WHERE streamed IS TRUE)  AS server_ttft_n,
    quantile_cont(server_ttft_ms, [0.5, 0.9, 0.95, 0.99])
        FILTER (WHERE streamed IS TRUE)                    AS server_ttft_q,
    count(gateway_ttft_ms) FILTER (WHERE streamed IS TRUE) AS gateway_ttft_n,
    quantile_cont(gateway_ttft_ms, [0.5, 0.9, 0.95, 0.99])
        FILTER (WHERE streamed IS TRUE)                    AS gateway_ttft_q,
    count(gateway_upstream_ttfb_ms) FILTER (WHERE streamed IS TRUE) AS gateway_upstream_ttfb_n,
    quantile_cont(gateway_upstream_ttfb_ms, [0.5, 0.9, 0.95, 0.99])
        FILTER (WHERE streamed IS TRUE)                    AS gateway_upstream_ttfb_q,
    count(tps_user)                                        AS tps_user_n,
    quantile_cont(tps_user, [0.5, 0.9, 0.95, 0.99])        AS tps_user_q,

    count(*) FILTER (WHERE completed AND output_tokens IS NOT NULL)
                                                           AS completed_n,
    coalesce(sum(output_tokens) FILTER (WHERE completed), 0)::BIGINT
                                                           AS completed_output_tokens,
    (epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9    AS window_s,
    CASE WHEN epoch_ns(max(start)) > epoch_ns(min(start))
         THEN coalesce(sum(output_tokens) FILTER (WHERE completed), 0)
              / ((epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9)
    END                                                    AS service_tps,

    any_value(e2e_tail_threshold)                          AS e2e_tail_threshold,
    count(*) FILTER (WHERE in_e2e_tail)                    AS e2e_tail_n,
    avg(client_e2e_ms) FILTER (WHERE in_e2e_tail)          AS e2e_tail_client_e2e_mean,
    count(server_e2e_ms) FILTER (WHERE in_e2e_tail)        AS e2e_tail_server_e2e_n,
    avg(server_e2e_ms) FILTER (WHERE in_e2e_tail)          AS e2e_tail_server_e2e_mean,
    any_value(ttft_tail_threshold)                         AS ttft_tail_threshold,
    count(*) FILTER (WHERE in_ttft_tail)                   AS ttft_tail_n,
    avg(client_ttft_ms) FILTER (WHERE in_ttft_tail)        AS ttft_tail_client_ttft_mean,

    count(network_ms)                                      AS network_n,
    quantile_cont(network_ms, [0.5, 0.95])                 AS network_q,
    count(network_ms) FILTER (WHERE in_e2e_tail)           AS network_tail_n,
    avg(network_ms) FILTER (WHERE in_e2e_tail)             AS network_tail_mean,
    count(application_ms)                                  AS application_n,
    quantile_cont(application_ms, [0.5, 0.95])             AS application_q,
    count(application_ms) FILTER (WHERE in_e2e_tail)       AS application_tail_n,
    avg(application_ms) FILTER (WHERE in_e2e_tail)         AS application_tail_mean,
    count(queue_ms)                                        AS queue_n,
    quantile_cont(queue_ms, [0.5, 0.95])                   AS queue_q,
    count(queue_ms) FILTER (WHERE in_e2e_tail)             AS queue_tail_n,
    avg(queue_ms) FILTER (WHERE in_e2e_tail)               AS queue_tail_mean,
    count(model_ms)                                        AS model_n,
    quantile_cont(model_ms, [0.5, 0.95])                   AS model_q,
    count(model_ms) FILTER (WHERE in_e2e_tail)             AS model_tail_n,
    avg(model_ms) FILTER (WHERE in_e2e_tail)               AS model_tail_mean,

    count(prefill_ms) AS prefill_n,
    quantile_cont(prefill_ms, [0.5, 0.95]) AS prefill_q,
    count(prefill_ms) FILTER (WHERE in_e2e_tail) AS prefill_tail_n,
    avg(prefill_ms) FILTER (WHERE in_e2e_tail) AS prefill_tail_mean,
    list_sort(list(DISTINCT server_format) FILTER (WHERE prefill_ms IS NOT NULL AND server_format IS NOT NULL)) AS prefill_formats,
    count(decode_ms) AS decode_n,
    quantile_cont(decode_ms, [0.5, 0.95]) AS decode_q,
    count(decode_ms) FILTER (WHERE in_e2e_tail) AS decode_tail_n,
    avg(decode_ms) FILTER (WHERE in_e2e_tail) AS decode_tail_mean,
    list_sort(list(DISTINCT server_format) FILTER (WHERE decode_ms IS NOT NULL AND server_format IS NOT NULL)) AS decode_formats,
    count(server_overhead_ms) AS server_overhead_n,
    quantile_cont(server_overhead_ms, [0.5, 0.95]) AS server_overhead_q,
    count(server_overhead_ms) FILTER (WHERE in_e2e_tail) AS server_overhead_tail_n,
    avg(server_overhead_ms) FILTER (WHERE in_e2e_tail) AS server_overhead_tail_mean,
    list_sort(list(DISTINCT server_format) FILTER (WHERE server_overhead_ms IS NOT NULL AND server_format IS NOT NULL)) AS server_overhead_formats,
    count(ttft_prefill_ms) FILTER (WHERE streamed IS TRUE) AS ttft_prefill_n,
    quantile_cont(ttft_prefill_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE) AS ttft_prefill_q,
    count(ttft_prefill_ms) FILTER (WHERE in_ttft_tail) AS ttft_prefill_tail_n,
    avg(ttft_prefill_ms) FILTER (WHERE in_ttft_tail) AS ttft_prefill_tail_mean,
    list_sort(list(DISTINCT server_format) FILTER (WHERE ttft_prefill_ms IS NOT NULL AND streamed IS TRUE AND server_format IS NOT NULL)) AS ttft_prefill_formats,
    count(ttft_server_overhead_ms) FILTER (WHERE streamed IS TRUE) AS ttft_server_overhead_n,
    quantile_cont(ttft_server_overhead_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE) AS ttft_server_overhead_q,
    count(ttft_server_overhead_ms) FILTER (WHERE in_ttft_tail) AS ttft_server_overhead_tail_n,
    avg(ttft_server_overhead_ms) FILTER (WHERE in_ttft_tail) AS ttft_server_overhead_tail_mean,
    list_sort(list(DISTINCT server_format) FILTER (WHERE ttft_server_overhead_ms IS NOT NULL AND streamed IS TRUE AND server_format IS NOT NULL)) AS ttft_server_overhead_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE application_ms IS NOT NULL AND server_format IS NOT NULL)) AS application_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE queue_ms IS NOT NULL AND server_format IS NOT NULL)) AS queue_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE model_ms IS NOT NULL AND server_format IS NOT NULL)) AS model_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE ttft_application_ms IS NOT NULL AND streamed IS TRUE AND server_format IS NOT NULL)) AS ttft_application_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE ttft_queue_ms IS NOT NULL AND streamed IS TRUE AND server_format IS NOT NULL)) AS ttft_queue_formats,
    list_sort(list(DISTINCT server_format) FILTER (WHERE ttft_model_ms IS NOT NULL AND streamed IS TRUE AND server_format IS NOT NULL)) AS ttft_model_formats,
    count(ttft_network_ms) FILTER (WHERE streamed IS TRUE) AS ttft_network_n,
    quantile_cont(ttft_network_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE)                    AS ttft_network_q,
    count(ttft_network_ms) FILTER (WHERE in_ttft_tail)     AS ttft_network_tail_n,
    avg(ttft_network_ms) FILTER (WHERE in_ttft_tail)       AS ttft_network_tail_mean,
    count(ttft_application_ms) FILTER (WHERE streamed IS TRUE) AS ttft_application_n,
    quantile_cont(ttft_application_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE)                    AS ttft_application_q,
    count(ttft_application_ms) FILTER (WHERE in_ttft_tail) AS ttft_application_tail_n,
    avg(ttft_application_ms) FILTER (WHERE in_ttft_tail)   AS ttft_application_tail_mean,
    count(ttft_queue_ms) FILTER (WHERE streamed IS TRUE)   AS ttft_queue_n,
    quantile_cont(ttft_queue_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE)                    AS ttft_queue_q,
    count(ttft_queue_ms) FILTER (WHERE in_ttft_tail)       AS ttft_queue_tail_n,
    avg(ttft_queue_ms) FILTER (WHERE in_ttft_tail)         AS ttft_queue_tail_mean,
    count(ttft_model_ms) FILTER (WHERE streamed IS TRUE)   AS ttft_model_n,
    quantile_cont(ttft_model_ms, [0.5, 0.95])
        FILTER (WHERE streamed IS TRUE)                    AS ttft_model_q,
    count(ttft_model_ms) FILTER (WHERE in_ttft_tail)       AS ttft_model_tail_n,
    avg(ttft_model_ms) FILTER (WHERE in_ttft_tail)         AS ttft_model_tail_mean
FROM y
GROUP BY is_all, slice_key
ORDER BY is_all DESC, requests DESC, slice_key NULLS LAST
