-- contract_members.sql: the requests of each use case of the contract
-- (--contract), each once for the use case as a whole (slice_key = [])
-- and, where the use case names slice columns (by), once in its slice
-- (slice_key: the values of those columns, '(none)' for NULL). Over the
-- sliced view (the requests with their prompt_bucket and output_bucket),
-- request_quality (its evals and cost) and the contract
-- tables analyze fills from the file:
--   contract_cases(case_id, name, by_cols), contract_match(case_id, col,
--   value): a request belongs to a case when each of the case's columns
--   has its value (as text: streamed 'true', status '200'); a case with no
--   match rows takes every request.
WITH r AS (
    SELECT q.request_id, q.start, q.completed, q.streamed, q.output_tokens,
        q.client_e2e_ms, q.client_ttft_ms, q.tps_user, q.gateway_e2e_ms, q.server_e2e_ms,
        q.server_ttft_ms, q.network_ms, q.application_ms, q.queue_ms, q.model_ms,
        q.prefill_ms, q.decode_ms, q.ttft_network_ms, q.ttft_application_ms,
        q.ttft_queue_ms, q.ttft_model_ms,
        qq.eval_rows, qq.eval_pass_n, qq.eval_pass, qq.eval_score_n, qq.eval_score, qq.cost_usd,
        map(['model', 'use_case', 'streamed', 'client', 'region', 'gateway', 'route', 'replica',
             'status', 'finish_reason', 'phase', 'concurrency_bucket', 'prompt_bucket', 'output_bucket'],
            [q.model, q.use_case, CAST(q.streamed AS VARCHAR), q.client, q.region, q.gateway,
             q.route, q.replica, CAST(q.status AS VARCHAR), q.finish_reason, q.phase,
             q.concurrency_bucket, q.prompt_bucket, q.output_bucket]) AS labels
    FROM sliced AS q
    LEFT JOIN request_quality AS qq ON qq.request_id = q.request_id
),
-- Each case with its match rows as one list, so that membership is an
-- expression on each request, not a correlated subquery (which DuckDB
-- would run over every case and request held in memory at once).
cases AS (
    SELECT c.case_id, c.by_cols,
        list({'col': x.col, 'value': x.value}) FILTER (WHERE x.case_id IS NOT NULL) AS want
    FROM contract_cases AS c
    LEFT JOIN contract_match AS x ON x.case_id = c.case_id
    GROUP BY c.case_id, c.by_cols
),
m AS (
    SELECT c.case_id, c.by_cols, r.*
    FROM cases AS c, r
    WHERE coalesce(len(c.want), 0) = 0
       OR list_bool_and(list_transform(c.want, lambda w: r.labels[w.col] IS NOT DISTINCT FROM w.value))
)
SELECT case_id, []::VARCHAR[] AS slice_key, * EXCLUDE (case_id, by_cols, labels)
FROM m
UNION ALL
SELECT case_id, list_transform(by_cols, x -> coalesce(labels[x], '(none)')) AS slice_key,
    * EXCLUDE (case_id, by_cols, labels)
FROM m
WHERE len(by_cols) > 0
