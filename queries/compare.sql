-- compare.sql: the change of each figure from a baseline to a target, per
-- slice, with the noise around it (infertrace compare).
--
-- Input: the compare_input view analyze creates for one slicing at a time:
-- the requests.parquet rows of both sides, each with side ('baseline' or
-- 'target') and slice_key (a VARCHAR[] of the slicing's whitelisted
-- columns; NULL for the all-requests slicing). A side is a data dir, a time
-- window of one dir (start, on the first tier's clock, in [from, to)), or
-- the rows of one dir where a slice column has one value.
--
-- Metrics and their samples, as in slices.sql: client_e2e, network,
-- application, queue, model, prefill, decode over every request having the
-- value; client_ttft and the ttft_* components over streamed requests only;
-- tps_user (per-user tokens/s, streamed by definition). NULL is no sample.
--
-- Per slice, metric and quantile p in (0.5, 0.95, 0.99):
--   baseline, target = quantile_cont at p on each side (n: its samples);
--   delta = target - baseline;
--   se = the standard error of each side's quantile: the large-sample form
--     of the order-statistic interval, sqrt(p(1-p)/n) / f(Q_p), with the
--     density's reciprocal 1/f(Q_p) estimated from the neighbouring
--     quantiles, (Q(p+h) - Q(p-h)) / 2h (Siddiqui-Bloch-Gastwirth), h =
--     0.05 at P50, 0.02 at P95, 0.005 at P99;
--   lo, hi = delta -/+ 1.96 sqrt(se_baseline^2 + se_target^2): a 95%
--     interval of the difference (the two sides are independent samples);
--   significant = the interval excludes 0 (a difference of 0 with both
--     sides constant is not significant);
--   strong = the 99.9% interval (3.29 instead of 1.96) excludes 0: what a
--     finding needs, since a comparison tests hundreds of figures and at
--     95% one in twenty unchanged figures would look changed;
--   too_few = a side has fewer than 10 samples beyond the quantile
--     (n (1 - p) < 10: P50 needs n >= 20, P95 n >= 200, P99 n >= 1000):
--     its se, lo and hi are NULL, never a guess, and it is not significant.
-- The intervals treat requests as independent samples. Requests that
-- share a cause (one burst's backlog, one busy batch) are not, so a change
-- due to one event can look surer than it is: the findings ask for strong.
-- Slices present on one side only have NULL for the other side.
WITH
long AS (
    SELECT side, slice_key, unnest([
        {'metric': 'client_e2e',       'v': client_e2e_ms},
        {'metric': 'client_ttft',      'v': CASE WHEN streamed IS TRUE THEN client_ttft_ms END},
        {'metric': 'tps_user',         'v': tps_user},
        {'metric': 'network',          'v': network_ms},
        {'metric': 'application',      'v': application_ms},
        {'metric': 'queue',            'v': queue_ms},
        {'metric': 'model',            'v': model_ms},
        {'metric': 'prefill',          'v': prefill_ms},
        {'metric': 'decode',           'v': decode_ms},
        {'metric': 'ttft_network',     'v': CASE WHEN streamed IS TRUE THEN ttft_network_ms END},
        {'metric': 'ttft_application', 'v': CASE WHEN streamed IS TRUE THEN ttft_application_ms END},
        {'metric': 'ttft_queue',       'v': CASE WHEN streamed IS TRUE THEN ttft_queue_ms END},
        {'metric': 'ttft_model',       'v': CASE WHEN streamed IS TRUE THEN ttft_model_ms END}
    ], recursive := true)
    FROM compare_input
),
g AS (
    SELECT side, slice_key, metric, count(v) AS n,
        quantile_cont(v::DOUBLE, [0.45, 0.5, 0.55, 0.93, 0.95, 0.97, 0.985, 0.99, 0.995]) AS q
    FROM long
    GROUP BY side, slice_key, metric
),
requests_n AS (
    SELECT side, slice_key, count(*) AS requests
    FROM compare_input
    GROUP BY side, slice_key
),
-- p, the index of Q(p) in g.q (Q(p - h) and Q(p + h) are beside it), h.
p AS (
    SELECT * FROM (VALUES (0.5::DOUBLE, 2, 0.05::DOUBLE), (0.95, 5, 0.02), (0.99, 8, 0.005)) AS p(p, i, h)
),
est AS (
    SELECT g.side, g.slice_key, g.metric, g.n, p.p,
        g.q[p.i] AS value,
        g.n * (1 - p.p) < 10 AS too_few,
        CASE WHEN g.n * (1 - p.p) >= 10
             THEN sqrt(p.p * (1 - p.p) / g.n) * (g.q[p.i + 1] - g.q[p.i - 1]) / (2 * p.h) END AS se
    FROM g CROSS JOIN p
),
b AS (SELECT * FROM est WHERE side = 'baseline'),
t AS (SELECT * FROM est WHERE side = 'target'),
d AS (
    SELECT coalesce(b.slice_key, t.slice_key) AS slice_key,
        coalesce(b.metric, t.metric) AS metric,
        coalesce(b.p, t.p) AS p,
        coalesce(b.n, 0) AS baseline_n,
        coalesce(t.n, 0) AS target_n,
        b.value AS baseline,
        t.value AS target,
        t.value - b.value AS delta,
        coalesce(b.too_few, true) OR coalesce(t.too_few, true) AS too_few,
        1.96 * sqrt(b.se * b.se + t.se * t.se) AS half,
        3.29 * sqrt(b.se * b.se + t.se * t.se) AS half_strong
    FROM b FULL JOIN t
      ON b.slice_key IS NOT DISTINCT FROM t.slice_key AND b.metric = t.metric AND b.p = t.p
)
SELECT d.slice_key, d.metric, d.p, d.baseline_n, d.target_n, d.baseline, d.target, d.delta, d.too_few,
    CASE WHEN NOT d.too_few THEN d.delta - d.half END AS lo,
    CASE WHEN NOT d.too_few THEN d.delta + d.half END AS hi,
    coalesce(NOT d.too_few AND (d.delta - d.half > 0 OR d.delta + d.half < 0), false) AS significant,
    coalesce(NOT d.too_few AND abs(d.delta) > d.half_strong, false) AS strong,
    coalesce(rb.requests, 0) AS baseline_requests,
    coalesce(rt.requests, 0) AS target_requests
FROM d
LEFT JOIN requests_n AS rb ON rb.side = 'baseline' AND rb.slice_key IS NOT DISTINCT FROM d.slice_key
LEFT JOIN requests_n AS rt ON rt.side = 'target' AND rt.slice_key IS NOT DISTINCT FROM d.slice_key
ORDER BY coalesce(rt.requests, 0) + coalesce(rb.requests, 0) DESC, d.slice_key NULLS FIRST, d.metric, d.p
