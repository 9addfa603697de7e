-- phases.sql: cold start, burst and steady state side by side, over the
-- requests view. One row per phase, always all three in that order (n = 0
-- when no request was detected in a phase), so the phases are never merged
-- into one number. phase is derived per request in requests.sql.
--
-- Percentiles are quantile_cont P50/P90/P95/P99, each with its own n:
--   client_e2e, queue, model: every request of the phase with the value;
--   client_ttft: streamed requests only (as in slices.sql).
-- window_first/window_last: earliest and latest request start of the phase.
WITH p(phase, ord) AS (VALUES ('cold', 1), ('burst', 2), ('steady', 3))
SELECT
    p.phase,
    count(r.request_id)                                           AS requests,
    min(r.start)                                                  AS window_first,
    max(r.start)                                                  AS window_last,
    count(r.client_e2e_ms)                                        AS client_e2e_n,
    quantile_cont(r.client_e2e_ms, [0.5, 0.9, 0.95, 0.99])        AS client_e2e_q,
    count(CASE WHEN r.streamed IS TRUE THEN r.client_ttft_ms END)     AS client_ttft_n,
    quantile_cont(CASE WHEN r.streamed IS TRUE THEN r.client_ttft_ms END,
                  [0.5, 0.9, 0.95, 0.99])                         AS client_ttft_q,
    count(r.queue_ms)                                             AS queue_n,
    quantile_cont(r.queue_ms, [0.5, 0.9, 0.95, 0.99])             AS queue_q,
    count(r.model_ms)                                             AS model_n,
    quantile_cont(r.model_ms, [0.5, 0.9, 0.95, 0.99])             AS model_q,
    count(r.network_ms)                                           AS network_n,
    quantile_cont(r.network_ms, [0.5, 0.9, 0.95, 0.99])           AS network_q,
    count(r.application_ms)                                       AS application_n,
    quantile_cont(r.application_ms, [0.5, 0.9, 0.95, 0.99])       AS application_q,
    count(CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END)
                                                                  AS model_per_token_n,
    quantile_cont(CASE WHEN r.output_tokens > 0 THEN r.model_ms / r.output_tokens END,
                  [0.5, 0.9, 0.95, 0.99])                         AS model_per_token_q
FROM p LEFT JOIN requests AS r ON r.phase = p.phase
GROUP BY p.phase, p.ord
ORDER BY p.ord
