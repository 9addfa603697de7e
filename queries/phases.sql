-- phases.sql: cold start, burst and steady state side by side, over the
-- requests view. One row per phase, always all three in that order (n = 0
-- when no request was detected in a phase), so the phases are never merged
-- into one number. phase is derived per request in requests.sql.
--
-- Percentiles are P50/P90/P95/P99 as quantile_cont gives them, each with
-- its own n (0 without samples), from phase_pct (the table pct_ci.sql makes
-- of phase_ci_values.sql), over the successful requests of the phase
-- (completed and not aborted; request_outcome in macros.sql):
--   client_e2e, queue, model: every such request of the phase with the value;
--   client_ttft: streamed requests only (as in slices.sql).
-- requests counts every request of the phase, failed ones included;
-- window_first/window_last: earliest and latest request start of the phase.
WITH p(phase, ord) AS (VALUES ('cold', 1), ('burst', 2), ('steady', 3)),
d AS (
    SELECT
        p.phase,
        p.ord,
        count(r.request_id)                                           AS requests,
        min(r.start)                                                  AS window_first,
        max(r.start)                                                  AS window_last
    FROM p LEFT JOIN requests AS r ON r.phase = p.phase
    GROUP BY p.phase, p.ord
),
q AS (
    SELECT grp,
        any_value(n) FILTER (WHERE metric = 'client_e2e')      AS client_e2e_n,
        any_value(n) FILTER (WHERE metric = 'client_ttft')     AS client_ttft_n,
        any_value(n) FILTER (WHERE metric = 'queue')           AS queue_n,
        any_value(n) FILTER (WHERE metric = 'model')           AS model_n,
        any_value(n) FILTER (WHERE metric = 'network')         AS network_n,
        any_value(n) FILTER (WHERE metric = 'application')     AS application_n,
        any_value(n) FILTER (WHERE metric = 'model_per_token') AS model_per_token_n,
        any_value(q) FILTER (WHERE metric = 'client_e2e')      AS client_e2e_q,
        any_value(q) FILTER (WHERE metric = 'client_ttft')     AS client_ttft_q,
        any_value(q) FILTER (WHERE metric = 'queue')           AS queue_q,
        any_value(q) FILTER (WHERE metric = 'model')           AS model_q,
        any_value(q) FILTER (WHERE metric = 'network')         AS network_q,
        any_value(q) FILTER (WHERE metric = 'application')     AS application_q,
        any_value(q) FILTER (WHERE metric = 'model_per_token') AS model_per_token_q
    FROM phase_pct
    GROUP BY grp
)
SELECT d.* EXCLUDE (ord),
    coalesce(q.client_e2e_n, 0) AS client_e2e_n,
    coalesce(q.client_ttft_n, 0) AS client_ttft_n,
    coalesce(q.queue_n, 0) AS queue_n,
    coalesce(q.model_n, 0) AS model_n,
    coalesce(q.network_n, 0) AS network_n,
    coalesce(q.application_n, 0) AS application_n,
    coalesce(q.model_per_token_n, 0) AS model_per_token_n,
    q.client_e2e_q, q.client_ttft_q, q.queue_q, q.model_q, q.network_q, q.application_q, q.model_per_token_q
FROM d LEFT JOIN q ON q.grp = [d.phase]
ORDER BY d.ord
