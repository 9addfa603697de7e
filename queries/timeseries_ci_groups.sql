-- timeseries_ci_groups.sql: the pct_groups input of pct_ci.sql for the
-- Time series table: one group per window of the series (gid in time
-- order; grp: [epoch_ns(window_start) as text], the key analyze gives
-- each window its intervals by), with its window_start, width_s and
-- around_burst, chosen as timeseries.sql states.
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
)
SELECT (row_number() OVER (ORDER BY window_start))::INTEGER AS gid, false AS grp_all,
    [epoch_ns(window_start)::VARCHAR] AS grp, NULL AS part, window_start, width_s, around_burst
FROM windows
