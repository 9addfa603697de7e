-- timeseries.sql: per time window of request starts, arrivals and P95s,
-- so a burst and its aftermath show up in time.
--
-- Window width: the smallest of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15,
-- 30 min, 1, 2, 3, 6, 12, 24 h that cuts the span from the first to the
-- last start into at most 40 windows; windows are aligned by time_bucket
-- and every window between the first and the last is listed, empty ones
-- with n = 0. start is the first tier on the request's path (on that
-- tier's clock), so host clock offsets blur window edges by that much.
--
-- Per window: requests (all requests starting in it, including rejected
-- ones), arrivals_per_s = requests / width, P95 by quantile_cont of
-- client_e2e_ms, queue_ms and model_ms with their n, and how many of its
-- requests were detected as burst and as cold.
WITH
bounds AS (
    SELECT min(start) AS first, max(start) AS last,
           (epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9 AS span_s
    FROM requests
    WHERE start IS NOT NULL
),
width AS (
    SELECT coalesce(min(w) FILTER (WHERE b.span_s / w <= 40), 86400) AS w
    FROM bounds AS b,
         (SELECT unnest([1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
                         3600, 7200, 10800, 21600, 43200, 86400]) AS w)
    WHERE b.first IS NOT NULL
),
windows AS (
    SELECT unnest(range(time_bucket(to_seconds(w.w), b.first),
                        time_bucket(to_seconds(w.w), b.last) + to_seconds(w.w),
                        to_seconds(w.w))) AS window_start,
           w.w AS width_s
    FROM bounds AS b, width AS w
),
r AS (
    SELECT time_bucket(to_seconds(w.w), start) AS window_start, *
    FROM requests, width AS w
    WHERE start IS NOT NULL
)
SELECT
    x.window_start,
    any_value(x.width_s)                                 AS width_s,
    count(r.request_id)                                  AS requests,
    count(r.request_id) / any_value(x.width_s)           AS arrivals_per_s,
    count(r.client_e2e_ms)                               AS client_e2e_n,
    quantile_cont(r.client_e2e_ms, 0.95)                 AS client_e2e_p95,
    count(r.queue_ms)                                    AS queue_n,
    quantile_cont(r.queue_ms, 0.95)                      AS queue_p95,
    count(r.model_ms)                                    AS model_n,
    quantile_cont(r.model_ms, 0.95)                      AS model_p95,
    count(*) FILTER (WHERE r.phase = 'burst')            AS burst,
    count(*) FILTER (WHERE r.phase = 'cold')             AS cold
FROM windows AS x LEFT JOIN r USING (window_start)
GROUP BY x.window_start
ORDER BY x.window_start
