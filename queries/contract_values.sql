-- contract_values.sql: per request of each use case and slice
-- (contract_members) and each percentile constraint of its case
-- (contract_targets with p), the request's value of the metric and
-- whether the metric applies to it. NULL value where it applies but is
-- unknown (a tier's record missing). The metrics, exactly:
--   client_e2e_ms, gateway_e2e_ms, server_e2e_ms, queue_ms, model_ms,
--     network_ms, application_ms: the requests.parquet column; every request.
--   client_ttft_ms, server_ttft_ms: streamed requests only.
--   tps_user: streamed requests with two output tokens or more (unknown
--     count: applies).
--   tpot_ms: 1000 / tps_user = (client E2E - client TTFT) / (output tokens
--     - 1): time per output token after the first (the first excluded).
--   eval_score: the mean score of the request's rows (of the named eval);
--     applies to requests with a score only.
--   cost_usd: request_quality's cost; applies to every request.
WITH es AS (
    SELECT request_id, GROUPING(eval) = 1 AS all_evals, eval, avg(score) AS score
    FROM evals
    GROUP BY GROUPING SETS ((request_id, eval), (request_id))
)
SELECT m.case_id, m.slice_key, t.target_id, m.request_id,
    CASE t.metric
        WHEN 'client_e2e_ms'  THEN m.client_e2e_ms
        WHEN 'gateway_e2e_ms' THEN m.gateway_e2e_ms
        WHEN 'server_e2e_ms'  THEN m.server_e2e_ms
        WHEN 'queue_ms'       THEN m.queue_ms
        WHEN 'model_ms'       THEN m.model_ms
        WHEN 'network_ms'     THEN m.network_ms
        WHEN 'application_ms' THEN m.application_ms
        WHEN 'client_ttft_ms' THEN CASE WHEN m.streamed IS TRUE THEN m.client_ttft_ms END
        WHEN 'server_ttft_ms' THEN CASE WHEN m.streamed IS TRUE THEN m.server_ttft_ms END
        WHEN 'tps_user'       THEN m.tps_user
        WHEN 'tpot_ms'        THEN 1000 / m.tps_user
        WHEN 'eval_score'     THEN es.score
        WHEN 'cost_usd'       THEN m.cost_usd
    END AS value,
    CASE
        WHEN t.metric IN ('client_ttft_ms', 'server_ttft_ms') THEN m.streamed IS TRUE
        WHEN t.metric IN ('tps_user', 'tpot_ms') THEN m.streamed IS TRUE AND coalesce(m.output_tokens, 2) > 1
        WHEN t.metric = 'eval_score' THEN es.score IS NOT NULL
        ELSE true
    END AS applies
FROM contract_members AS m
JOIN contract_targets AS t ON t.case_id = m.case_id AND t.p IS NOT NULL
LEFT JOIN es ON t.metric = 'eval_score' AND es.request_id = m.request_id
    AND (CASE WHEN t.eval IS NULL THEN es.all_evals ELSE NOT es.all_evals AND es.eval = t.eval END)
