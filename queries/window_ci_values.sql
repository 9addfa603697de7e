-- window_ci_values.sql: the ci_values input of pct_ci.sql for the time
-- series: every sample of timeseries.sql's P95s, in its window. A request's
-- window is time_bucket of its start by the series' width, as in
-- timeseries.sql; requests outside the windows listed (a series around a
-- burst) have no window.
WITH w AS (
    SELECT any_value(width_s) AS width_s, min(window_start) AS lo, max(window_start) AS hi FROM timeseries
),
r AS (
    SELECT time_bucket(to_seconds(w.width_s), q.start) AS window_start,
        q.client_e2e_ms, q.queue_ms, q.model_ms
    FROM requests AS q, w
    WHERE q.start IS NOT NULL
)
SELECT false AS grp_all, [epoch_ns(window_start)::VARCHAR] AS grp, metric, value
FROM (
    UNPIVOT (
        SELECT r.window_start,
            r.client_e2e_ms::DOUBLE AS client_e2e,
            r.queue_ms::DOUBLE AS queue,
            r.model_ms::DOUBLE AS model
        FROM r, w
        WHERE r.window_start BETWEEN w.lo AND w.hi
    ) ON COLUMNS(* EXCLUDE (window_start)) INTO NAME metric VALUE value
)
