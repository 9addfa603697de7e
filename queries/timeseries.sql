-- timeseries.sql: per time window of request starts, arrivals and P95s,
-- so a burst and its aftermath show up in time.
--
-- Window width: the smallest of 1, 2, 5, 10, 15, 30 s, 1, 2, 5, 10, 15,
-- 30 min, 1, 2, 3, 6, 12, 24 h that cuts the span from the first to the
-- last start into at most 40 windows; but when requests were detected as
-- burst, at most the largest of those widths that fits 4 times into the
-- span from the first to the last burst start (1 s when none does), so
-- that the burst fills whole windows and shows. When that width cuts the
-- span into more than 40 windows, the series is the 40 windows around the
-- burst (the windows of its first and last start, centred, shifted to stay
-- within the span) and around_burst is true. Windows are aligned by
-- time_bucket and every window of the series is listed, empty ones with
-- n = 0. start is the first tier on the request's path (on that tier's
-- clock), so host clock offsets blur window edges by that much.
--
-- Per window: requests (all requests starting in it, including rejected
-- ones), arrivals_per_s = requests / width, P50, P90 and P95 (*_q) by
-- quantile_cont of client_e2e_ms, queue_ms and model_ms with their n (the
-- report shows the P95, with the 95% interval and "n too small" rule of
-- pct_ci.sql; P50 and P90 are its thresholds), and how many of its
-- requests were detected as burst and as cold.
WITH
bounds AS (
    SELECT min(start) AS first, max(start) AS last,
           (epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9 AS span_s
    FROM requests
    WHERE start IS NOT NULL
),
burst AS (
    SELECT min(start) AS first, max(start) AS last,
           (epoch_ns(max(start)) - epoch_ns(min(start))) / 1e9 AS span_s
    FROM requests
    WHERE start IS NOT NULL AND phase = 'burst'
),
widths AS (
    SELECT unnest([1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800,
                   3600, 7200, 10800, 21600, 43200, 86400]) AS w
),
whole AS (
    SELECT coalesce(min(x.w) FILTER (WHERE b.span_s / x.w <= 40), 86400) AS w
    FROM bounds AS b, widths AS x
    WHERE b.first IS NOT NULL
),
burst_fit AS (
    SELECT coalesce(max(x.w) FILTER (WHERE 4 * x.w <= u.span_s), 1) AS w
    FROM burst AS u, widths AS x
    WHERE u.first IS NOT NULL
    GROUP BY u.span_s
),
width AS (
    SELECT CASE WHEN f.w IS NULL THEN h.w ELSE least(h.w, f.w) END AS w
    FROM whole AS h LEFT JOIN burst_fit AS f ON true
),
-- The series' first and last window.
edges AS (
    SELECT w.w,
           time_bucket(to_seconds(w.w), b.first) AS lo_all,
           time_bucket(to_seconds(w.w), b.last) AS hi_all,
           time_bucket(to_seconds(w.w), u.first) AS lo_burst,
           time_bucket(to_seconds(w.w), u.last) AS hi_burst
    FROM bounds AS b, width AS w, burst AS u
),
span AS (
    SELECT w, lo_all, hi_all, lo_burst, hi_burst,
           (epoch_ns(hi_all) - epoch_ns(lo_all)) / 1e9 / w + 1 > 40 AS around_burst,
           greatest(lo_all, least(
               lo_burst - to_seconds(w * floor((40 - ((epoch_ns(hi_burst) - epoch_ns(lo_burst)) / 1e9 / w + 1)) / 2)),
               hi_all - to_seconds(w * 39))) AS lo_zoom
    FROM edges
),
windows AS (
    SELECT unnest(range(lo, least(hi_all, lo + to_seconds(w * 39)) + to_seconds(w), to_seconds(w))) AS window_start,
           w AS width_s, around_burst
    FROM (SELECT *, CASE WHEN around_burst THEN lo_zoom ELSE lo_all END AS lo FROM span)
),
r AS (
    SELECT time_bucket(to_seconds(w.w), start) AS window_start, *
    FROM requests, width AS w
    WHERE start IS NOT NULL
)
SELECT
    x.window_start,
    any_value(x.width_s)                                 AS width_s,
    any_value(x.around_burst)                            AS around_burst,
    count(r.request_id)                                  AS requests,
    count(r.request_id) / any_value(x.width_s)           AS arrivals_per_s,
    count(r.client_e2e_ms)                               AS client_e2e_n,
    quantile_cont(r.client_e2e_ms, [0.5, 0.9, 0.95])     AS client_e2e_q,
    count(r.queue_ms)                                    AS queue_n,
    quantile_cont(r.queue_ms, [0.5, 0.9, 0.95])          AS queue_q,
    count(r.model_ms)                                    AS model_n,
    quantile_cont(r.model_ms, [0.5, 0.9, 0.95])          AS model_q,
    count(*) FILTER (WHERE r.phase = 'burst')            AS burst,
    count(*) FILTER (WHERE r.phase = 'cold')             AS cold
FROM windows AS x LEFT JOIN r USING (window_start)
GROUP BY x.window_start
ORDER BY x.window_start
