-- timeseries_ci_values.sql: the pct_values input of pct_ci.sql for the
-- Time series table: client E2E, queue and model time of every request
-- that starts in a window of the series (timeseries_ci_groups), in that
-- window's group. Successful requests only (sliced_ok: completed and not
-- aborted, request_outcome in macros.sql).
UNPIVOT (
    SELECT g.gid,
        r.client_e2e_ms::DOUBLE AS client_e2e,
        r.queue_ms::DOUBLE AS queue,
        r.model_ms::DOUBLE AS model
    FROM (
        SELECT time_bucket(to_seconds(w.w), start) AS window_start, client_e2e_ms, queue_ms, model_ms
        FROM sliced_ok, (SELECT any_value(width_s) AS w FROM timeseries_ci_groups) AS w
        WHERE start IS NOT NULL
    ) AS r
    JOIN timeseries_ci_groups AS g ON g.window_start = r.window_start
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
