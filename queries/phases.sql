-- phases.sql: cold start, burst and steady state side by side, over the
-- requests view. One row per phase, always all three in that order (n = 0
-- when no request was detected in a phase), so the phases are never merged
-- into one number. phase is derived per request in queries/requests.
--
-- Percentiles are P50/P90/P95/P99 as quantile_cont gives them, each with
-- its own n (0 without samples), from phase_pct (the table pct_ci.sql makes
-- of the phase's cells of slice_phase_ci_values.sql and, for model per
-- token, replica_phase_ci_values.sql), over the successful requests of the phase
-- (completed and not aborted; request_outcome in macros.sql):
--   client_e2e, queue, model: every such request of the phase with the value;
--   client_ttft: streamed requests only (as in slices.sql);
--   upstream, network_application, unsplit: the time a missing tier leaves
--   not split (queries/requests), every such request of the phase with the value.
-- requests counts every request of the phase, failed ones included;
-- window_first/window_last: earliest and latest request start of the phase.
-- episodes: how many separate stretches the phase's requests fall in: a new
--   one starts after more than 10 minutes without a request start of the
--   phase (the gap that separates sessions: docs/attribution.md), so two
--   bursts a week apart are 2, not one burst a week long.
WITH p(phase, ord) AS (VALUES ('cold', 1), ('burst', 2), ('steady', 3)),
e AS (
    SELECT phase, count(*) FILTER (WHERE gap IS NULL OR gap > INTERVAL 10 MINUTE) AS episodes
    FROM (SELECT phase, start - lag(start) OVER (PARTITION BY phase ORDER BY start) AS gap
          FROM requests WHERE start IS NOT NULL AND phase <> 'steady')
    GROUP BY phase
),
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
        any_value(n) FILTER (WHERE metric = 'upstream')        AS upstream_n,
        any_value(n) FILTER (WHERE metric = 'network_application') AS network_application_n,
        any_value(n) FILTER (WHERE metric = 'unsplit')         AS unsplit_n,
        any_value(n) FILTER (WHERE metric = 'model_per_token') AS model_per_token_n,
        any_value(q) FILTER (WHERE metric = 'client_e2e')      AS client_e2e_q,
        any_value(q) FILTER (WHERE metric = 'client_ttft')     AS client_ttft_q,
        any_value(q) FILTER (WHERE metric = 'queue')           AS queue_q,
        any_value(q) FILTER (WHERE metric = 'model')           AS model_q,
        any_value(q) FILTER (WHERE metric = 'network')         AS network_q,
        any_value(q) FILTER (WHERE metric = 'application')     AS application_q,
        any_value(q) FILTER (WHERE metric = 'upstream')        AS upstream_q,
        any_value(q) FILTER (WHERE metric = 'network_application') AS network_application_q,
        any_value(q) FILTER (WHERE metric = 'unsplit')         AS unsplit_q,
        any_value(q) FILTER (WHERE metric = 'model_per_token') AS model_per_token_q
    FROM phase_pct
    GROUP BY grp
)
SELECT d.* EXCLUDE (ord), coalesce(e.episodes, 0) AS episodes,
    coalesce(q.client_e2e_n, 0) AS client_e2e_n,
    coalesce(q.client_ttft_n, 0) AS client_ttft_n,
    coalesce(q.queue_n, 0) AS queue_n,
    coalesce(q.model_n, 0) AS model_n,
    coalesce(q.network_n, 0) AS network_n,
    coalesce(q.application_n, 0) AS application_n,
    coalesce(q.upstream_n, 0) AS upstream_n,
    coalesce(q.network_application_n, 0) AS network_application_n,
    coalesce(q.unsplit_n, 0) AS unsplit_n,
    coalesce(q.model_per_token_n, 0) AS model_per_token_n,
    q.client_e2e_q, q.client_ttft_q, q.queue_q, q.model_q, q.network_q, q.application_q,
    q.upstream_q, q.network_application_q, q.unsplit_q, q.model_per_token_q
FROM d LEFT JOIN q ON q.grp = [d.phase]
LEFT JOIN e ON e.phase = d.phase
ORDER BY d.ord
