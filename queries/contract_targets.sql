-- contract_targets.sql: every constraint of the contract measured in each
-- use case and slice (the rows of the contract_goodput table), in the
-- contract's order: its sample count n, value, 95% confidence interval
-- (ci_lo, ci_hi; NULL where a bound is open or there is none) and verdict.
--
-- Percentiles (contract_values, the requests the metric applies to with a
-- value): value as quantile_cont (position q(n-1)+1 between ranks,
-- interpolated). Its interval is distribution-free, from order statistics:
-- the ranks pct_lo_rank(n, q) and pct_hi_rank(n, q) of macros.sql; a rank
-- outside 1..n leaves that bound open. A percentile from fewer than
-- 1/(1-q) samples (pct_too_small: P99 from fewer than 100, P95 from fewer
-- than 20) is 'n too small', not a verdict.
-- Shares, k of n, with the Wilson score interval (wilson_lo, wilson_hi):
--   eval_pass_rate: requests whose evals all passed / requests with a pass
--     (of the named eval: that eval's row);
--   error_rate: requests not completed / requests;
--   goodput_share: good / (good + missed), from contract_goodput.
-- Rates over the window (first to last start; NULL when it is empty), the
-- count k with k +- 1.96 sqrt(k) (Poisson, normal approximation):
--   completions_per_hour: completed requests / window hours;
--   goodput_per_s: good requests / window seconds.
-- Costs: cost_per_1k_requests = 1000 x mean cost of the priced requests,
-- n = priced, interval mean +- 1.96 sd / sqrt(n); cost_per_good_request =
-- the requests' total cost / good requests, n = good, only when every
-- request is priced (else NULL), no interval.
-- verdict: 'no data' (no value), 'n too small', else 'pass' or 'fail' as
-- value op target; decided: both bounds of the interval give the same
-- verdict (the target lies outside it); NULL without both bounds.
WITH grid AS (
    SELECT g.case_id, g.slice_key, g.requests, g.window_s, g.completed, g.good, g.missed,
        g.per_request_targets, g.priced,
        t.target_id, t.kind, t.metric, t.p, t.op, t.target, t.eval
    FROM contract_goodput AS g
    JOIN contract_targets AS t ON t.case_id = g.case_id
),
ranked AS (
    SELECT v.case_id, v.slice_key, v.target_id, v.value, t.p / 100 AS q,
        row_number() OVER w AS rk,
        count(*) OVER (PARTITION BY v.case_id, v.slice_key, v.target_id) AS n
    FROM contract_values AS v
    JOIN contract_targets AS t ON t.case_id = v.case_id AND t.target_id = v.target_id
    WHERE v.applies AND v.value IS NOT NULL
    WINDOW w AS (PARTITION BY v.case_id, v.slice_key, v.target_id ORDER BY v.value)
),
ranks AS (
    SELECT *, q * (n - 1) + 1 AS pos,
        pct_lo_rank(n, q) AS lo_rank,
        pct_hi_rank(n, q) AS hi_rank
    FROM ranked
),
pct AS (
    SELECT case_id, slice_key, target_id, any_value(n) AS n,
        max(value) FILTER (WHERE rk = floor(pos)) AS v_lo,
        max(value) FILTER (WHERE rk = ceil(pos)) AS v_hi,
        any_value(pos) - floor(any_value(pos)) AS frac,
        max(value) FILTER (WHERE rk = lo_rank) AS ci_lo,
        max(value) FILTER (WHERE rk = hi_rank) AS ci_hi,
        pct_too_small(any_value(n), any_value(q)) AS too_small
    FROM ranks
    GROUP BY ALL
),
-- Per request and eval name: whether its row passed (named evals only).
named AS (
    SELECT m.case_id, m.slice_key, t.target_id,
        count(e.pass) AS n, count(*) FILTER (WHERE e.pass) AS k
    FROM contract_members AS m
    JOIN contract_targets AS t ON t.case_id = m.case_id AND t.metric = 'eval_pass_rate' AND t.eval IS NOT NULL
    JOIN evals AS e ON e.request_id = m.request_id AND e.eval = t.eval
    GROUP BY ALL
),
agg AS (
    SELECT case_id, slice_key,
        count(eval_pass)                                  AS eval_n,
        count(*) FILTER (WHERE eval_pass)                 AS eval_k,
        count(*) FILTER (WHERE NOT completed)             AS errors,
        avg(cost_usd)                                     AS cost_mean,
        stddev_samp(cost_usd)                             AS cost_sd,
        sum(cost_usd)                                     AS cost_sum
    FROM contract_members
    GROUP BY ALL
),
shares AS (
    SELECT g.case_id, g.slice_key, g.target_id,
        CASE g.metric
            WHEN 'eval_pass_rate' THEN CASE WHEN g.eval IS NULL THEN a.eval_n ELSE coalesce(nm.n, 0) END
            WHEN 'error_rate' THEN g.requests
            WHEN 'goodput_share' THEN CASE WHEN g.per_request_targets > 0 THEN g.good + g.missed END
        END AS n,
        CASE g.metric
            WHEN 'eval_pass_rate' THEN CASE WHEN g.eval IS NULL THEN a.eval_k ELSE coalesce(nm.k, 0) END
            WHEN 'error_rate' THEN a.errors
            WHEN 'goodput_share' THEN g.good
        END AS k
    FROM grid AS g
    JOIN agg AS a ON a.case_id = g.case_id AND a.slice_key = g.slice_key
    LEFT JOIN named AS nm ON nm.case_id = g.case_id AND nm.slice_key = g.slice_key AND nm.target_id = g.target_id
    WHERE g.metric IN ('eval_pass_rate', 'error_rate', 'goodput_share')
),
measured AS (
    -- percentiles
    SELECT g.case_id, g.slice_key, g.target_id, coalesce(p.n, 0) AS n, NULL::BIGINT AS k,
        p.v_lo + p.frac * (p.v_hi - p.v_lo) AS value, p.ci_lo, p.ci_hi,
        coalesce(p.too_small, false) AS too_small
    FROM grid AS g
    LEFT JOIN pct AS p ON p.case_id = g.case_id AND p.slice_key = g.slice_key AND p.target_id = g.target_id
    WHERE g.p IS NOT NULL
    UNION ALL
    -- shares, Wilson score interval (z = 1.96)
    SELECT case_id, slice_key, target_id, coalesce(n, 0), k,
        CASE WHEN n > 0 THEN k / n END,
        wilson_lo(k, n),
        wilson_hi(k, n),
        false
    FROM shares
    UNION ALL
    -- rates and costs
    SELECT g.case_id, g.slice_key, g.target_id,
        CASE g.metric WHEN 'completions_per_hour' THEN g.completed
                      WHEN 'goodput_per_s' THEN coalesce(g.good, 0)
                      WHEN 'cost_per_1k_requests' THEN g.priced
                      WHEN 'cost_per_good_request' THEN coalesce(g.good, 0) END,
        CASE g.metric WHEN 'completions_per_hour' THEN g.completed WHEN 'goodput_per_s' THEN g.good END,
        CASE g.metric
            WHEN 'completions_per_hour' THEN CASE WHEN g.window_s > 0 THEN g.completed / g.window_s * 3600 END
            WHEN 'goodput_per_s' THEN CASE WHEN g.window_s > 0 AND g.per_request_targets > 0 THEN g.good / g.window_s END
            WHEN 'cost_per_1k_requests' THEN 1000 * a.cost_mean
            WHEN 'cost_per_good_request' THEN CASE WHEN g.priced = g.requests AND g.good > 0 THEN a.cost_sum / g.good END
        END,
        CASE g.metric
            WHEN 'completions_per_hour' THEN CASE WHEN g.window_s > 0 THEN greatest(g.completed - 1.959964 * sqrt(g.completed), 0) / g.window_s * 3600 END
            WHEN 'goodput_per_s' THEN CASE WHEN g.window_s > 0 AND g.per_request_targets > 0 THEN greatest(g.good - 1.959964 * sqrt(g.good), 0) / g.window_s END
            WHEN 'cost_per_1k_requests' THEN 1000 * (a.cost_mean - 1.959964 * a.cost_sd / sqrt(g.priced))
        END,
        CASE g.metric
            WHEN 'completions_per_hour' THEN CASE WHEN g.window_s > 0 THEN (g.completed + 1.959964 * sqrt(g.completed)) / g.window_s * 3600 END
            WHEN 'goodput_per_s' THEN CASE WHEN g.window_s > 0 AND g.per_request_targets > 0 THEN (g.good + 1.959964 * sqrt(g.good)) / g.window_s END
            WHEN 'cost_per_1k_requests' THEN 1000 * (a.cost_mean + 1.959964 * a.cost_sd / sqrt(g.priced))
        END,
        false
    FROM grid AS g
    JOIN agg AS a ON a.case_id = g.case_id AND a.slice_key = g.slice_key
    WHERE g.metric IN ('completions_per_hour', 'goodput_per_s', 'cost_per_1k_requests', 'cost_per_good_request')
),
judged AS (
    SELECT g.case_id, g.slice_key, g.target_id, g.kind, g.metric, g.p, g.op, g.target, g.eval,
        x.n, x.k, x.value, x.ci_lo, x.ci_hi, x.too_small,
        list_transform([x.value, x.ci_lo, x.ci_hi], v -> CASE g.op
            WHEN '<=' THEN v <= g.target WHEN '<' THEN v < g.target
            WHEN '>=' THEN v >= g.target WHEN '>' THEN v > g.target END) AS ok
    FROM grid AS g
    JOIN measured AS x ON x.case_id = g.case_id AND x.slice_key = g.slice_key AND x.target_id = g.target_id
)
SELECT case_id, slice_key, target_id, kind, metric, p, op, target, eval, n, k, value, ci_lo, ci_hi,
    CASE WHEN value IS NULL THEN 'no data'
         WHEN too_small THEN 'n too small'
         WHEN ok[1] THEN 'pass'
         ELSE 'fail' END AS verdict,
    CASE WHEN value IS NOT NULL AND NOT too_small AND ok[2] IS NOT NULL AND ok[3] IS NOT NULL
         THEN ok[2] = ok[3] END AS decided
FROM judged
ORDER BY case_id, len(slice_key), slice_key, target_id
