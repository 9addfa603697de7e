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
-- and failed ones), arrivals_per_s = requests / width, P95 (as
-- quantile_cont gives it) of client_e2e_ms, queue_ms and model_ms with
-- their n (0 without samples) over its successful requests (completed and
-- not aborted, request_outcome in macros.sql), and how many of its
-- requests were detected as burst and as cold.
--
-- The windows are those of timeseries_ci_groups.sql (the width and the
-- series are chosen there); the P95s come from timeseries_pct, the table
-- pct_ci.sql makes of timeseries_ci_values.sql, in memory bounded by
-- DuckDB's memory limit. The report shows each P95 with its 95% interval
-- and "n too small" rule from the same rows (analyze reads them beside
-- this table; a window's group is [epoch_ns(window_start)] as text).
WITH
r AS (
    SELECT time_bucket(to_seconds(w.w), start) AS window_start, *
    FROM requests, (SELECT any_value(width_s) AS w FROM timeseries_ci_groups) AS w
    WHERE start IS NOT NULL
),
d AS (
    SELECT
        x.gid,
        x.window_start,
        any_value(x.width_s)                                 AS width_s,
        any_value(x.around_burst)                            AS around_burst,
        count(r.request_id)                                  AS requests,
        count(r.request_id) / any_value(x.width_s)           AS arrivals_per_s,
        count(*) FILTER (WHERE r.phase = 'burst')            AS burst,
        count(*) FILTER (WHERE r.phase = 'cold')             AS cold
    FROM timeseries_ci_groups AS x LEFT JOIN r USING (window_start)
    GROUP BY x.gid, x.window_start
),
q AS (
    SELECT gid,
        any_value(n) FILTER (WHERE metric = 'client_e2e')    AS client_e2e_n,
        any_value(n) FILTER (WHERE metric = 'queue')         AS queue_n,
        any_value(n) FILTER (WHERE metric = 'model')         AS model_n,
        any_value(q[3]) FILTER (WHERE metric = 'client_e2e') AS client_e2e_p95,
        any_value(q[3]) FILTER (WHERE metric = 'queue')      AS queue_p95,
        any_value(q[3]) FILTER (WHERE metric = 'model')      AS model_p95
    FROM timeseries_pct
    GROUP BY gid
)
SELECT d.window_start, d.width_s, d.around_burst, d.requests, d.arrivals_per_s,
    coalesce(q.client_e2e_n, 0) AS client_e2e_n, q.client_e2e_p95, coalesce(q.queue_n, 0) AS queue_n, q.queue_p95,
    coalesce(q.model_n, 0) AS model_n, q.model_p95,
    d.burst, d.cold
FROM d LEFT JOIN q USING (gid)
ORDER BY d.window_start
