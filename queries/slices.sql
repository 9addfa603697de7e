-- slices.sql: latency distributions and attribution per slice, over the
-- sliced view: the requests view plus slice_key, a VARCHAR[] of the
-- --by columns (whitelisted by analyze). Every request also lands in the
-- "all requests" row (is_all, slice_key NULL).
--
-- Percentiles are quantile_cont: linear interpolation between the two
-- nearest ranks (for 1..10, P50 = 5.5 and P90 = 9.1). Each metric has its
-- own sample count (*_n): NULL values are not samples.
--
-- Every latency and rate sample, tail and server format below is of a
-- successful request only (the sliced_ok view: completed and not aborted,
-- request_outcome in macros.sql); a failed request (a 5xx, a 429 or a
-- timeout, often fast) would pull the percentiles down. requests, the
-- window and the failures (failed_n, failures: slice_dists.sql) count
-- every request of the slice.
--
-- Sample sets:
--   client_e2e, gateway_e2e, server_e2e, network, application, queue, model,
--     and upstream, network_application, unsplit (the time a missing tier
--     leaves not split, see queries/requests): every request where the value
--     exists (streamed or not).
--   client_ttft, gateway_ttft, gateway_upstream_ttfb, server_ttft, ttft_*:
--     streamed requests only (the client record says streamed = true);
--     tps_user is streamed-only by definition.
--   service-wide output tokens/s: sum of output_tokens of completed requests
--     (the completed column of queries/requests: status 200-299, or no status
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
--
-- Cost (it must stay linear in the requests and hold no whole-table sort):
-- the distributions are one grouped pass (slice_dists.sql: GROUPING SETS
-- give each slice and the all-requests row, whose rows
-- slice_components.sql and slice_ttft_components.sql take); the tail means a pass that keeps only
-- the requests above a row's P95 (element [3] of client_e2e_q /
-- client_ttft_q); the formats a pass grouped by slice and format.
-- Conditional samples are CASE WHEN ... THEN x END rather than FILTER:
-- the same values (NULL is no sample), but DuckDB runs a FILTER aggregate
-- several times slower.
WITH
-- The distributions, one row per slice and the all-requests row, from the
-- slice_dists, slice_components and slice_ttft_components tables analyze
-- creates first (queries of those names).
m AS MATERIALIZED (
    SELECT d.*, c.* EXCLUDE (is_all, slice_key), t.* EXCLUDE (is_all, slice_key)
    FROM slice_dists AS d
    JOIN slice_components AS c ON c.is_all = d.is_all AND c.slice_key IS NOT DISTINCT FROM d.slice_key
    JOIN slice_ttft_components AS t ON t.is_all = d.is_all AND t.slice_key IS NOT DISTINCT FROM d.slice_key
),
-- The slowest 5%: each request once in its slice and once in all requests,
-- compared with that row's P95 client E2E and P95 client TTFT; only
-- requests in a tail go on.
t AS (
    SELECT m.is_all, m.slice_key, r.* EXCLUDE (slice_key),
        r.client_e2e_ms > m.client_e2e_q[3]                    AS in_e2e_tail,
        r.streamed IS TRUE AND r.client_ttft_ms > m.client_ttft_q[3] AS in_ttft_tail
    FROM sliced_ok AS r
    JOIN m ON NOT m.is_all AND m.slice_key IS NOT DISTINCT FROM r.slice_key
    WHERE r.client_e2e_ms > m.client_e2e_q[3]
       OR (r.streamed IS TRUE AND r.client_ttft_ms > m.client_ttft_q[3])
    UNION ALL
    SELECT m.is_all, m.slice_key, r.* EXCLUDE (slice_key),
        r.client_e2e_ms > m.client_e2e_q[3]                    AS in_e2e_tail,
        r.streamed IS TRUE AND r.client_ttft_ms > m.client_ttft_q[3] AS in_ttft_tail
    FROM sliced_ok AS r
    JOIN m ON m.is_all
    WHERE r.client_e2e_ms > m.client_e2e_q[3]
       OR (r.streamed IS TRUE AND r.client_ttft_ms > m.client_ttft_q[3])
),
tail AS (
    SELECT m.is_all, m.slice_key,
        count(CASE WHEN in_e2e_tail THEN 1 END)                AS e2e_tail_n,
        avg(CASE WHEN in_e2e_tail THEN client_e2e_ms END)      AS e2e_tail_client_e2e_mean,
        count(CASE WHEN in_e2e_tail THEN server_e2e_ms END)    AS e2e_tail_server_e2e_n,
        avg(CASE WHEN in_e2e_tail THEN server_e2e_ms END)      AS e2e_tail_server_e2e_mean,
        count(CASE WHEN in_ttft_tail THEN 1 END)               AS ttft_tail_n,
        avg(CASE WHEN in_ttft_tail THEN client_ttft_ms END)    AS ttft_tail_client_ttft_mean,
        count(CASE WHEN in_e2e_tail THEN network_ms END)       AS network_tail_n,
        avg(CASE WHEN in_e2e_tail THEN network_ms END)         AS network_tail_mean,
        count(CASE WHEN in_e2e_tail THEN application_ms END)   AS application_tail_n,
        avg(CASE WHEN in_e2e_tail THEN application_ms END)     AS application_tail_mean,
        count(CASE WHEN in_e2e_tail THEN queue_ms END)         AS queue_tail_n,
        avg(CASE WHEN in_e2e_tail THEN queue_ms END)           AS queue_tail_mean,
        count(CASE WHEN in_e2e_tail THEN model_ms END)         AS model_tail_n,
        avg(CASE WHEN in_e2e_tail THEN model_ms END)           AS model_tail_mean,
        count(CASE WHEN in_e2e_tail THEN upstream_ms END)      AS upstream_tail_n,
        avg(CASE WHEN in_e2e_tail THEN upstream_ms END)        AS upstream_tail_mean,
        count(CASE WHEN in_e2e_tail THEN network_application_ms END)
                                                               AS network_application_tail_n,
        avg(CASE WHEN in_e2e_tail THEN network_application_ms END)
                                                               AS network_application_tail_mean,
        count(CASE WHEN in_e2e_tail THEN unsplit_ms END)       AS unsplit_tail_n,
        avg(CASE WHEN in_e2e_tail THEN unsplit_ms END)         AS unsplit_tail_mean,
        count(CASE WHEN in_e2e_tail THEN prefill_ms END)       AS prefill_tail_n,
        avg(CASE WHEN in_e2e_tail THEN prefill_ms END)         AS prefill_tail_mean,
        count(CASE WHEN in_e2e_tail THEN decode_ms END)        AS decode_tail_n,
        avg(CASE WHEN in_e2e_tail THEN decode_ms END)          AS decode_tail_mean,
        count(CASE WHEN in_e2e_tail THEN server_overhead_ms END)
                                                               AS server_overhead_tail_n,
        avg(CASE WHEN in_e2e_tail THEN server_overhead_ms END)
                                                               AS server_overhead_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_prefill_ms END)
                                                               AS ttft_prefill_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_prefill_ms END)   AS ttft_prefill_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_server_overhead_ms END)
                                                               AS ttft_server_overhead_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_server_overhead_ms END)
                                                               AS ttft_server_overhead_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_network_ms END)
                                                               AS ttft_network_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_network_ms END)   AS ttft_network_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_application_ms END)
                                                               AS ttft_application_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_application_ms END)
                                                               AS ttft_application_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_queue_ms END)   AS ttft_queue_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_queue_ms END)     AS ttft_queue_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_model_ms END)   AS ttft_model_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_model_ms END)     AS ttft_model_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_network_application_ms END)
                                                               AS ttft_network_application_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_network_application_ms END)
                                                               AS ttft_network_application_tail_mean,
        count(CASE WHEN in_ttft_tail THEN ttft_unsplit_ms END) AS ttft_unsplit_tail_n,
        avg(CASE WHEN in_ttft_tail THEN ttft_unsplit_ms END)   AS ttft_unsplit_tail_mean
    FROM m
    LEFT JOIN t ON t.is_all = m.is_all AND t.slice_key IS NOT DISTINCT FROM m.slice_key
    GROUP BY m.is_all, m.slice_key
),
-- The server formats behind each figure: which formats have a value, per
-- slice and format first, then listed per slice.
f1 AS (
    SELECT GROUPING(slice_key) = 1 AS is_all, slice_key, server_format,
        bool_or(prefill_ms IS NOT NULL)                        AS prefill,
        bool_or(decode_ms IS NOT NULL)                         AS decode,
        bool_or(server_overhead_ms IS NOT NULL)                AS server_overhead,
        bool_or(application_ms IS NOT NULL)                    AS application,
        bool_or(queue_ms IS NOT NULL)                          AS queue,
        bool_or(model_ms IS NOT NULL)                          AS model,
        bool_or(streamed IS TRUE AND ttft_prefill_ms IS NOT NULL)
                                                               AS ttft_prefill,
        bool_or(streamed IS TRUE AND ttft_server_overhead_ms IS NOT NULL)
                                                               AS ttft_server_overhead,
        bool_or(streamed IS TRUE AND ttft_application_ms IS NOT NULL)
                                                               AS ttft_application,
        bool_or(streamed IS TRUE AND ttft_queue_ms IS NOT NULL)
                                                               AS ttft_queue,
        bool_or(streamed IS TRUE AND ttft_model_ms IS NOT NULL)
                                                               AS ttft_model
    FROM sliced_ok
    WHERE server_format IS NOT NULL
    GROUP BY GROUPING SETS ((slice_key, server_format), (server_format))
),
f AS (
    SELECT is_all, slice_key,
        list_sort(list(server_format) FILTER (WHERE prefill))  AS prefill_formats,
        list_sort(list(server_format) FILTER (WHERE decode))   AS decode_formats,
        list_sort(list(server_format) FILTER (WHERE server_overhead))
                                                               AS server_overhead_formats,
        list_sort(list(server_format) FILTER (WHERE application))
                                                               AS application_formats,
        list_sort(list(server_format) FILTER (WHERE queue))    AS queue_formats,
        list_sort(list(server_format) FILTER (WHERE model))    AS model_formats,
        list_sort(list(server_format) FILTER (WHERE ttft_prefill))
                                                               AS ttft_prefill_formats,
        list_sort(list(server_format) FILTER (WHERE ttft_server_overhead))
                                                               AS ttft_server_overhead_formats,
        list_sort(list(server_format) FILTER (WHERE ttft_application))
                                                               AS ttft_application_formats,
        list_sort(list(server_format) FILTER (WHERE ttft_queue))
                                                               AS ttft_queue_formats,
        list_sort(list(server_format) FILTER (WHERE ttft_model))
                                                               AS ttft_model_formats
    FROM f1
    GROUP BY is_all, slice_key
)
SELECT
    m.*,
    m.client_e2e_q[3]  AS e2e_tail_threshold,
    m.client_ttft_q[3] AS ttft_tail_threshold,
    tail.* EXCLUDE (is_all, slice_key),
    f.* EXCLUDE (is_all, slice_key)
FROM m
JOIN tail ON tail.is_all = m.is_all AND tail.slice_key IS NOT DISTINCT FROM m.slice_key
LEFT JOIN f ON f.is_all = m.is_all AND f.slice_key IS NOT DISTINCT FROM m.slice_key
ORDER BY m.is_all DESC, m.requests DESC, m.slice_key NULLS LAST
