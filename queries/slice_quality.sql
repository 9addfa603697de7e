-- slice_quality.sql: quality and cost per slice (the sliced view, as in
-- slices.sql, with the all-requests row is_all), from request_quality:
--   evaluated: requests with at least one eval row;
--   eval_pass_n / eval_pass_k: requests with a pass / whose evals all
--     passed; the share with its Wilson 95% interval (wilson_lo,
--     wilson_hi of macros.sql);
--   eval_score_n / eval_score_mean: requests with a score, mean of their
--     mean scores;
--   priced: requests with a cost; cost_per_1k = 1000 x their mean cost;
--   cost_sum: their total; cost_per_success = cost_sum / the priced
--     requests that completed (the `completed` column of queries/requests):
--     what one successful answer costs when failed requests are paid for
--     too; NULL when none completed.
-- Slices without any eval or cost are rows too (n = 0, values NULL).
WITH q AS (
    SELECT s.slice_key, s.completed, rq.eval_rows, rq.eval_pass, rq.eval_score, rq.cost_usd
    FROM sliced AS s
    LEFT JOIN request_quality AS rq ON rq.request_id = s.request_id
),
g AS (
    SELECT GROUPING(slice_key) = 1 AS is_all, slice_key,
        count(*) FILTER (WHERE eval_rows > 0)         AS evaluated,
        count(eval_pass)                              AS eval_pass_n,
        count(*) FILTER (WHERE eval_pass)             AS eval_pass_k,
        count(eval_score)                             AS eval_score_n,
        avg(eval_score)                               AS eval_score_mean,
        count(cost_usd)                               AS priced,
        1000 * avg(cost_usd)                          AS cost_per_1k,
        sum(cost_usd)                                 AS cost_sum,
        sum(cost_usd) / nullif(count(cost_usd) FILTER (WHERE completed), 0) AS cost_per_success
    FROM q
    GROUP BY GROUPING SETS ((slice_key), ())
)
SELECT *,
    CASE WHEN eval_pass_n > 0 THEN eval_pass_k / eval_pass_n END AS eval_pass_share,
    wilson_lo(eval_pass_k, eval_pass_n) AS eval_pass_lo,
    wilson_hi(eval_pass_k, eval_pass_n) AS eval_pass_hi
FROM g
