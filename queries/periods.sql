-- periods.sql: the trend of the headline figures per slice over the days
-- or weeks present in the data (report --period day|week, --weekly), and
-- the change of each from the previous period present, with its noise.
--
-- Input: the sliced view (requests plus slice_key, as in slices.sql) and
-- the one-row table period_unit(unit): 'day' or 'week'. A request's period
-- is date_trunc(unit, start): the UTC day, or the ISO week from Monday
-- 00:00 UTC, of its start (on the clock of the first tier on its path, as
-- the report's windows). Requests without a start are in no period. Every
-- request also lands in the all-requests row (is_all, slice_key NULL).
-- One grouped pass over the requests: GROUP BY period, slice, metric; the
-- quantiles come from period_pct (pct_ci.sql), in bounded memory.
--
-- Figures (metric, p), samples as in slices.sql (NULL is no sample; the
-- quantiles are of successful requests only, completed and not aborted,
-- request_outcome in macros.sql):
--   client_e2e P50, P95, P99 and network, application, queue, model P95:
--     every request having the value;
--   client_ttft P95: streamed requests; tps_user P50 (per-user tokens/s):
--     streamed by definition;
--   error_rate (p NULL): requests not completed (the completed column of
--     queries/requests) / requests, k of n, with its Wilson 95% interval.
-- n is each figure's sample count; requests, window_first and window_last
-- are the period's requests in the slice and their first and last start.
--
-- Change from the previous period present in the slice (prev_*; NULL for
-- the first): delta = value - prev_value, with the noise compare uses
-- (compare.sql): each period's quantile standard error in the large-sample
-- order-statistic form sqrt(p(1-p)/n) (Q(p+h) - Q(p-h)) / 2h, h = 0.05 at
-- P50, 0.02 at P95, 0.005 at P99; lo, hi = delta -/+ 1.96 sqrt(se_prev^2 +
-- se^2); too_few when a period has n (1 - p) < 10 (P50 needs n >= 20, P95
-- n >= 200, P99 n >= 1000): lo and hi NULL and not significant. An error
-- rate's change has Newcombe's interval from the two Wilson intervals
-- (hybrid score, method 10): lo = delta - sqrt((p - l)^2 + (u_prev -
-- p_prev)^2), hi = delta + sqrt((u - p)^2 + (p_prev - l_prev)^2).
-- significant = the interval excludes 0. Periods are treated as
-- independent samples of requests; requests sharing a cause are not.
WITH
u AS (SELECT any_value(unit) AS unit FROM period_unit),
long AS (
    SELECT CASE WHEN u.unit = 'week' THEN date_trunc('week', s.start) ELSE date_trunc('day', s.start) END AS period,
        s.slice_key, s.start, unnest(list_append(list_transform([
        {'metric': 'client_e2e',  'v': s.client_e2e_ms},
        {'metric': 'client_ttft', 'v': CASE WHEN s.streamed IS TRUE THEN s.client_ttft_ms END},
        {'metric': 'tps_user',    'v': s.tps_user},
        {'metric': 'network',     'v': s.network_ms},
        {'metric': 'application', 'v': s.application_ms},
        {'metric': 'queue',       'v': s.queue_ms},
        {'metric': 'model',       'v': s.model_ms}
        ], lambda x: {'metric': x.metric, 'v': CASE WHEN s.succeeded THEN x.v END}),
        {'metric': 'error_rate',  'v': CASE WHEN s.completed IS FALSE THEN 1.0 ELSE 0.0 END}
    ), recursive := true)
    FROM sliced AS s, u
    WHERE s.start IS NOT NULL
),
g AS (
    SELECT period, GROUPING(slice_key) = 1 AS is_all, slice_key, metric,
        count(v) AS n,
        sum(v) AS k,
        min(start) AS window_first,
        max(start) AS window_last
    FROM long
    GROUP BY GROUPING SETS ((period, slice_key, metric), (period, metric))
),
-- The quantiles 0.45, 0.5, 0.55, 0.93, 0.95, 0.97, 0.985, 0.99, 0.995 of
-- each figure but the error rate, from period_pct (the table pct_ci.sql
-- makes of period_ci_values.sql), as quantile_cont gives them.
gq AS (
    SELECT g.*, p.q
    FROM g
    LEFT JOIN period_pct AS p
        ON p.part = g.period AND p.grp_all = g.is_all AND p.grp IS NOT DISTINCT FROM g.slice_key AND p.metric = g.metric
),
-- The figures: metric, p, the index of Q(p) in g.q, h.
f AS (
    SELECT * FROM (VALUES
        ('client_e2e', 0.5::DOUBLE, 2, 0.05::DOUBLE), ('client_e2e', 0.95, 5, 0.02), ('client_e2e', 0.99, 8, 0.005),
        ('client_ttft', 0.95, 5, 0.02), ('tps_user', 0.5, 2, 0.05),
        ('network', 0.95, 5, 0.02), ('application', 0.95, 5, 0.02), ('queue', 0.95, 5, 0.02), ('model', 0.95, 5, 0.02),
        ('error_rate', NULL, NULL, NULL)) AS f(metric, p, i, h)
),
est AS (
    SELECT g.period, g.is_all, g.slice_key, g.metric, f.p, g.n, g.window_first, g.window_last,
        CASE WHEN f.p IS NULL THEN CAST(g.k AS BIGINT) END AS k,
        CASE WHEN f.p IS NULL THEN CASE WHEN g.n > 0 THEN g.k / g.n END ELSE g.q[f.i] END AS value,
        CASE WHEN f.p IS NULL THEN g.n = 0 ELSE g.n * (1 - f.p) < 10 END AS too_few,
        CASE WHEN f.p IS NOT NULL AND g.n * (1 - f.p) >= 10
             THEN sqrt(f.p * (1 - f.p) / g.n) * (g.q[f.i + 1] - g.q[f.i - 1]) / (2 * f.h) END AS se,
        CASE WHEN f.p IS NULL AND g.n > 0 THEN (g.k + 1.920729 - 1.959964 * sqrt(g.k * (g.n - g.k) / g.n + 0.960365)) / (g.n + 3.841459) END AS wlo,
        CASE WHEN f.p IS NULL AND g.n > 0 THEN (g.k + 1.920729 + 1.959964 * sqrt(g.k * (g.n - g.k) / g.n + 0.960365)) / (g.n + 3.841459) END AS whi
    FROM gq AS g JOIN f ON f.metric = g.metric
),
req AS (
    SELECT period, is_all, slice_key, n AS requests, window_first, window_last
    FROM est WHERE metric = 'error_rate'
),
chg AS (
    SELECT *,
        lag(period)  OVER w AS prev_period,
        lag(n)       OVER w AS prev_n,
        lag(value)   OVER w AS prev_value,
        lag(too_few) OVER w AS prev_too_few,
        lag(se)      OVER w AS prev_se,
        lag(wlo)     OVER w AS prev_wlo,
        lag(whi)     OVER w AS prev_whi
    FROM est
    WINDOW w AS (PARTITION BY is_all, slice_key, metric, p ORDER BY period)
),
d AS (
    SELECT *, value - prev_value AS delta,
        prev_period IS NOT NULL AND (too_few OR prev_too_few) AS change_too_few,
        CASE
            WHEN prev_period IS NULL OR too_few OR prev_too_few OR value IS NULL OR prev_value IS NULL THEN NULL
            WHEN p IS NULL THEN (value - prev_value) - sqrt((value - wlo) ^ 2 + (prev_whi - prev_value) ^ 2)
            ELSE (value - prev_value) - 1.959964 * sqrt(se * se + prev_se * prev_se) END AS lo,
        CASE
            WHEN prev_period IS NULL OR too_few OR prev_too_few OR value IS NULL OR prev_value IS NULL THEN NULL
            WHEN p IS NULL THEN (value - prev_value) + sqrt((whi - value) ^ 2 + (prev_value - prev_wlo) ^ 2)
            ELSE (value - prev_value) + 1.959964 * sqrt(se * se + prev_se * prev_se) END AS hi
    FROM chg
)
SELECT d.period, d.is_all, d.slice_key, d.metric, d.p, d.n, d.k, d.value, d.too_few,
    d.wlo AS value_lo, d.whi AS value_hi,
    d.prev_period, d.prev_n, d.prev_value, d.delta, coalesce(d.change_too_few, false) AS change_too_few,
    d.lo, d.hi, coalesce(d.lo > 0 OR d.hi < 0, false) AS significant,
    r.requests, r.window_first, r.window_last
FROM d
JOIN req AS r ON r.period = d.period AND r.is_all = d.is_all AND r.slice_key IS NOT DISTINCT FROM d.slice_key
ORDER BY d.is_all DESC, d.slice_key, d.period, d.metric, d.p
