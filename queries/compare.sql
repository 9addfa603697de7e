-- compare.sql: the change of each figure from a baseline to a target, per
-- slice, with the noise around it (infertrace compare).
--
-- Input: the compare_input view compare creates: the requests.parquet rows
-- of both sides, each with side ('baseline' or 'target') and slice_keys,
-- its slice in each slicing of the comparison: a list of {gi, slice_key},
-- gi numbering the slicings and slice_key a VARCHAR[] of the slicing's
-- whitelisted columns (NULL for the all-requests slicing). The slicings
-- are computed in one pass, each request read once (all of them at once
-- but in large comparisons, see slicingsPerQuery). A side is a data dir,
-- a time window of one dir (start, on the first tier's clock, in [from,
-- to)), or the rows of one dir where a slice column has one value.
--
-- Metrics and their samples, as in slices.sql: client_e2e, network,
-- application, queue, model, prefill, decode over every request having the
-- value; client_ttft and the ttft_* components over streamed requests only;
-- tps_user (per-user tokens/s, streamed by definition). NULL is no sample.
--
-- Per slicing, slice, metric and quantile p in (0.5, 0.95, 0.99):
--   baseline, target = quantile_cont at p on each side (n: its samples);
--   delta = target - baseline;
--   each side's interval of its quantile is distribution-free: the order
--     statistics of ranks floor(np - z sqrt(D np(1-p))) and
--     ceil(np + z sqrt(D np(1-p))) + 1 (macros.sql's pct_lo_rank and
--     pct_hi_rank with D = 1), NULL (open) where a rank is outside 1..n.
--     It assumes nothing of the distribution's shape, so it stays valid
--     where the quantile falls in a gap between two modes (two regions'
--     round trips), where a density estimated from neighbouring quantiles
--     is wrong;
--   D, the design effect, is how much time makes the samples depend on
--     one another: requests of one burst's backlog are one event, not n.
--     Each side's time is cut into blocks (of 1 minute, or a tenth of the
--     side's span from its first to its last start when that is shorter,
--     never under 1 s); the share f of samples at or below the side's
--     quantile has, over its K blocks (a_k of n_k samples at or below),
--     the cluster variance K/(K-1) sum (a_k - f n_k)^2 / n^2, and D is that
--     over the independent f(1-f)/n, at least 1: with f = a/n,
--     K/(K-1) sum (a_k n - a n_k)^2 / (a (n - a) n), from sums of
--     integers, so exact whatever order DuckDB adds them in. Samples in
--     one block only (K = 1) are one event and have no interval (D = n). A
--     tail that one burst made sits in a few blocks, so D is large and its
--     interval wide (open, mostly): one event does not make a change sure;
--   lo, hi = [target's lower bound - baseline's upper bound, target's
--     upper bound - baseline's lower bound], each side's interval at
--     sqrt(0.95) (z = 2.2365): both sides' quantiles lie in their intervals
--     together with 95% (the sides are independent), so the change lies in
--     [lo, hi] with at least 95%; NULL where a bound is open;
--   significant = lo > 0 or hi < 0 (a difference of 0 with both sides
--     constant is not significant);
--   strong = the same at 99.9% (each side at sqrt(0.999), z = 3.4808):
--     what a finding needs, since a comparison tests hundreds of figures;
--   too_few = a side has fewer than 10 samples beyond the quantile
--     (n (1 - p) < 10: P50 needs n >= 20, P95 n >= 200, P99 n >= 1000):
--     its lo and hi are NULL, never a guess, and it is not significant;
--   lo_indep, hi_indep = lo and hi with D = 1, as if requests were
--     independent: only to set slices of one comparison side by side (which
--     slice changed most), whose requests share the same time and bursts;
--   baseline_d, target_d = D of each side; baseline_blocks, target_blocks
--     = K.
-- Slices present on one side only have NULL for the other side. Rows come
-- by slicing (gi), then most requests first.
WITH
-- Each request once, numbered (rid).
r AS MATERIALIZED (
    SELECT row_number() OVER () AS rid, side, slice_keys, start, streamed,
        client_e2e_ms, client_ttft_ms, tps_user, network_ms, application_ms, queue_ms, model_ms, prefill_ms,
        decode_ms, ttft_network_ms, ttft_application_ms, ttft_queue_ms, ttft_model_ms
    FROM compare_input
),
-- Each request's slice in each slicing (gi 0: all requests, slice_key
-- NULL).
rk AS MATERIALIZED (
    SELECT rid, side, k.gi, k.slice_key
    FROM (SELECT rid, side, unnest(slice_keys) AS k FROM r)
),
-- The slices of every slicing, numbered (sid), so that the samples are
-- grouped by a number rather than by a list of values.
slices AS MATERIALIZED (
    SELECT gi, slice_key, row_number() OVER () AS sid
    FROM (SELECT DISTINCT gi, slice_key FROM rk)
),
rs AS MATERIALIZED (
    SELECT rk.rid, rk.side, s.sid
    FROM rk
    JOIN slices AS s ON s.gi = rk.gi AND s.slice_key IS NOT DISTINCT FROM rk.slice_key
),
requests_n AS (
    SELECT side, sid, count(*) AS requests
    FROM rs
    GROUP BY side, sid
),
span AS (
    SELECT side, min(start) AS t0,
        least(60e6, greatest(1e6, (epoch_us(max(start)) - epoch_us(min(start))) / 10.0)) AS block_us
    FROM r
    GROUP BY side
),
-- Each request's samples, one per metric it has, with its block and the
-- slices it is in. A metric is a number here (grouped by, joined on), its
-- name in the final SELECT.
long AS (
    SELECT i.side, l.sids,
        floor((epoch_us(i.start) - epoch_us(s.t0)) / s.block_us)::BIGINT AS blk,
        unnest([
        {'metric':  1, 'v': client_e2e_ms}, -- client_e2e
        {'metric':  2, 'v': CASE WHEN streamed IS TRUE THEN client_ttft_ms END}, -- client_ttft
        {'metric':  3, 'v': tps_user}, -- tps_user
        {'metric':  4, 'v': network_ms}, -- network
        {'metric':  5, 'v': application_ms}, -- application
        {'metric':  6, 'v': queue_ms}, -- queue
        {'metric':  7, 'v': model_ms}, -- model
        {'metric':  8, 'v': prefill_ms}, -- prefill
        {'metric':  9, 'v': decode_ms}, -- decode
        {'metric': 10, 'v': CASE WHEN streamed IS TRUE THEN ttft_network_ms END}, -- ttft_network
        {'metric': 11, 'v': CASE WHEN streamed IS TRUE THEN ttft_application_ms END}, -- ttft_application
        {'metric': 12, 'v': CASE WHEN streamed IS TRUE THEN ttft_queue_ms END}, -- ttft_queue
        {'metric': 13, 'v': CASE WHEN streamed IS TRUE THEN ttft_model_ms END} -- ttft_model
    ], recursive := true)
    FROM r AS i
    JOIN span AS s ON s.side = i.side
    JOIN (SELECT rid, list(sid) AS sids FROM rs GROUP BY rid) AS l ON l.rid = i.rid
),
-- Each sample once per slicing, in its slice of it.
x AS MATERIALIZED (
    SELECT side, unnest(sids) AS sid, blk, metric, v::DOUBLE AS v
    FROM long
    WHERE v IS NOT NULL
),
-- Per side, slice and metric: its samples sorted (sorted[r] is the order
-- statistic of rank r) and their quantiles (list_aggr runs the aggregate
-- quantile_cont over the list: the figure quantile_cont(v) gives, without
-- a second copy of the samples).
g AS MATERIALIZED (
    SELECT *, q[1] AS q1, q[2] AS q2, q[3] AS q3 -- for blocks, which compares every sample with them
    FROM (
        SELECT side, sid, metric, n, sorted, list_aggr(sorted, 'quantile_cont', [0.5, 0.95, 0.99]) AS q
        FROM (
            SELECT side, sid, metric, count(*) AS n, list_sort(list(v)) AS sorted
            FROM x
            GROUP BY side, sid, metric
        )
    )
),
p AS (
    SELECT * FROM (VALUES (0.5::DOUBLE, 1), (0.95, 2), (0.99, 3)) AS p(p, i)
),
est AS (
    SELECT g.side, g.sid, g.metric, g.n, p.p, g.q[p.i] AS value, g.n * (1 - p.p) < 10 AS too_few
    FROM g CROSS JOIN p
),
-- Per block: its samples (nk) and those at or below each of the side's
-- quantiles (a1, a2, a3: at P50, P95, P99).
blocks AS (
    SELECT x.side, x.sid, x.metric, x.blk, count(*) AS nk,
        count(*) FILTER (WHERE x.v <= g.q1) AS a1,
        count(*) FILTER (WHERE x.v <= g.q2) AS a2,
        count(*) FILTER (WHERE x.v <= g.q3) AS a3
    FROM x
    JOIN g ON g.side = x.side AND g.sid = x.sid AND g.metric = x.metric
    GROUP BY ALL
),
-- Over the K blocks: n = sum nk, a = sum ak, and the sums of squares that
-- give sum (ak - f nk)^2 with f = a / n exactly, in integers:
-- sum (ak n - a nk)^2 / n^2 = (n^2 saa - 2 n a san + a^2 snn) / n^2.
sums AS (
    SELECT side, sid, metric, count(*) AS k, sum(nk) AS n, sum(nk::HUGEINT * nk) AS snn,
        sum(a1) AS a1, sum(a1::HUGEINT * a1) AS saa1, sum(a1::HUGEINT * nk) AS san1,
        sum(a2) AS a2, sum(a2::HUGEINT * a2) AS saa2, sum(a2::HUGEINT * nk) AS san2,
        sum(a3) AS a3, sum(a3::HUGEINT * a3) AS saa3, sum(a3::HUGEINT * nk) AS san3
    FROM blocks
    GROUP BY side, sid, metric
),
dependence AS (
    SELECT s.side, s.sid, s.metric, p.p, s.k, s.n::HUGEINT AS n, s.snn,
        [s.a1, s.a2, s.a3][p.i]::HUGEINT AS a,
        [s.saa1, s.saa2, s.saa3][p.i] AS saa,
        [s.san1, s.san2, s.san3][p.i] AS san
    FROM sums AS s CROSS JOIN p
),
-- D = K/(K-1) sum (ak - f nk)^2 / (f (1 - f) n): with f = a / n,
-- K/(K-1) (n^2 saa - 2 n a san + a^2 snn) / (a (n - a) n).
design AS (
    SELECT side, sid, metric, p, k,
        CASE WHEN k < 2 THEN n::DOUBLE
             WHEN a >= n THEN 1.0
             ELSE greatest(1.0, k * (n * n * saa - 2 * n * a * san + a * a * snn)::DOUBLE / ((k - 1) * (a * (n - a) * n)::DOUBLE)) END AS d
    FROM dependence
),
-- The half-widths in ranks of each side's bounds: at 95% (w) and 99.9%
-- (s) for both sides together, and at 95% for independent samples (i).
ranks AS (
    SELECT e.*, d.d, d.k,
        2.2365 * sqrt(d.d * e.n * e.p * (1 - e.p)) AS w,
        3.4808 * sqrt(d.d * e.n * e.p * (1 - e.p)) AS s,
        2.2365 * sqrt(e.n * e.p * (1 - e.p)) AS i
    FROM est AS e
    JOIN design AS d ON d.side = e.side AND d.sid = e.sid AND d.metric = e.metric AND d.p = e.p
),
bounds AS (
    SELECT r.side, r.sid, r.metric, r.p, r.n, r.value, r.too_few, r.d, r.k,
        CASE WHEN floor(r.n * r.p - r.w) >= 1 THEN g.sorted[floor(r.n * r.p - r.w)::BIGINT] END AS lo_w,
        CASE WHEN ceil(r.n * r.p + r.w) + 1 <= r.n THEN g.sorted[ceil(r.n * r.p + r.w)::BIGINT + 1] END AS hi_w,
        CASE WHEN floor(r.n * r.p - r.s) >= 1 THEN g.sorted[floor(r.n * r.p - r.s)::BIGINT] END AS lo_s,
        CASE WHEN ceil(r.n * r.p + r.s) + 1 <= r.n THEN g.sorted[ceil(r.n * r.p + r.s)::BIGINT + 1] END AS hi_s,
        CASE WHEN floor(r.n * r.p - r.i) >= 1 THEN g.sorted[floor(r.n * r.p - r.i)::BIGINT] END AS lo_i,
        CASE WHEN ceil(r.n * r.p + r.i) + 1 <= r.n THEN g.sorted[ceil(r.n * r.p + r.i)::BIGINT + 1] END AS hi_i
    FROM ranks AS r
    JOIN g ON g.side = r.side AND g.sid = r.sid AND g.metric = r.metric
),
b AS (SELECT * FROM bounds WHERE side = 'baseline'),
t AS (SELECT * FROM bounds WHERE side = 'target'),
d AS (
    SELECT coalesce(b.sid, t.sid) AS sid,
        coalesce(b.metric, t.metric) AS metric,
        coalesce(b.p, t.p) AS p,
        coalesce(b.n, 0) AS baseline_n,
        coalesce(t.n, 0) AS target_n,
        b.value AS baseline,
        t.value AS target,
        t.value - b.value AS delta,
        coalesce(b.too_few, true) OR coalesce(t.too_few, true) AS too_few,
        t.lo_w - b.hi_w AS lo_w, t.hi_w - b.lo_w AS hi_w,
        t.lo_s - b.hi_s AS lo_s, t.hi_s - b.lo_s AS hi_s,
        t.lo_i - b.hi_i AS lo_i, t.hi_i - b.lo_i AS hi_i,
        b.d AS baseline_d, t.d AS target_d, b.k AS baseline_blocks, t.k AS target_blocks
    FROM b FULL JOIN t
      ON b.sid = t.sid AND b.metric = t.metric AND b.p = t.p
)
SELECT sl.gi, sl.slice_key,
    ['client_e2e', 'client_ttft', 'tps_user', 'network', 'application', 'queue',
     'model', 'prefill', 'decode', 'ttft_network', 'ttft_application', 'ttft_queue', 'ttft_model'][d.metric] AS metric,
    d.p, d.baseline_n, d.target_n, d.baseline, d.target, d.delta, d.too_few,
    CASE WHEN NOT d.too_few THEN d.lo_w END AS lo,
    CASE WHEN NOT d.too_few THEN d.hi_w END AS hi,
    coalesce(NOT d.too_few AND (d.lo_w > 0 OR d.hi_w < 0), false) AS significant,
    coalesce(NOT d.too_few AND (d.lo_s > 0 OR d.hi_s < 0), false) AS strong,
    CASE WHEN NOT d.too_few THEN d.lo_i END AS lo_indep,
    CASE WHEN NOT d.too_few THEN d.hi_i END AS hi_indep,
    d.baseline_d, d.target_d, d.baseline_blocks, d.target_blocks,
    coalesce(rb.requests, 0) AS baseline_requests,
    coalesce(rt.requests, 0) AS target_requests
FROM d
JOIN slices AS sl ON sl.sid = d.sid
LEFT JOIN requests_n AS rb ON rb.side = 'baseline' AND rb.sid = d.sid
LEFT JOIN requests_n AS rt ON rt.side = 'target' AND rt.sid = d.sid
ORDER BY sl.gi, coalesce(rt.requests, 0) + coalesce(rb.requests, 0) DESC, sl.slice_key NULLS FIRST, d.metric, d.p
