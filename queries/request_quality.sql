-- request_quality.sql: per request, what its evals say and what it cost,
-- over the requests view and the evals and prices tables (evals.sql,
-- prices.sql; empty without --evals / --prices). Only requests with an
-- eval row or a priced model are rows; the others have no quality or cost
-- (NULL, never 0).
--
--   eval_rows: eval rows joined by request_id (the ID the tiers use).
--   eval_pass_n / eval_pass: rows with a pass; true when every one passed.
--   eval_score_n / eval_score: rows with a score; their mean.
--   cost_usd, token prices: (prompt_tokens x input_per_mtok + output_tokens
--     x output_per_mtok) / 1e6; NULL when a token count is missing.
--   cost_usd, GPU-hour prices: gpu_hour x replicas x the model's span (its
--     first request's start to the latest end, start + E2E of the tier that
--     gave the start: client, else gateway, else server) in hours, shared
--     equally by the model's requests with a start.
WITH ev AS (
    SELECT request_id,
        count(*)                                 AS eval_rows,
        count(pass)                              AS eval_pass_n,
        bool_and(pass)                           AS eval_pass,
        count(score)                             AS eval_score_n,
        avg(score)                               AS eval_score
    FROM evals
    GROUP BY request_id
),
gpu AS (
    SELECT r.model, count(*) AS requests,
        any_value(p.gpu_hour) * any_value(p.replicas)
          * (max(epoch_ns(r.start) + coalesce(r.client_e2e_ms, r.gateway_e2e_ms, r.server_e2e_ms, 0) * 1e6)
             - min(epoch_ns(r.start))) / 3.6e12  AS cost
    FROM requests AS r
    JOIN prices AS p ON p.model = r.model AND p.gpu_hour IS NOT NULL
    WHERE r.start IS NOT NULL
    GROUP BY r.model
)
SELECT
    r.request_id,
    coalesce(ev.eval_rows, 0)                    AS eval_rows,
    coalesce(ev.eval_pass_n, 0)                  AS eval_pass_n,
    ev.eval_pass,
    coalesce(ev.eval_score_n, 0)                 AS eval_score_n,
    ev.eval_score,
    CASE WHEN p.gpu_hour IS NOT NULL THEN
             CASE WHEN r.start IS NOT NULL THEN gpu.cost / gpu.requests END
         ELSE (r.prompt_tokens * p.input_per_mtok + r.output_tokens * p.output_per_mtok) / 1e6
    END                                          AS cost_usd
FROM requests AS r
LEFT JOIN ev ON ev.request_id = r.request_id
LEFT JOIN prices AS p ON p.model = r.model
LEFT JOIN gpu ON gpu.model = r.model
WHERE ev.request_id IS NOT NULL OR p.model IS NOT NULL
