-- contract_goodput.sql: per use case and slice (contract_members), its
-- requests, window, goodput and why the others missed.
--
-- Per-request targets are the latency constraints on per-request metrics
-- (contract_targets.per_request): each request is checked against each
-- one that applies to it (contract_values), as value op target.
--   good:    completed (HTTP 2xx, or no status and no error) and meeting
--            every per-request target that applies to it;
--   missed:  not completed, or missing at least one target;
--   unknown: completed, missing none, but a value it needed is unknown;
--            left out of goodput (neither good nor missed).
-- goodput_share = good / (good + missed), its n = good + missed, with its
-- Wilson 95% interval (goodput_lo, goodput_hi: wilson_lo and wilson_hi of
-- macros.sql); goodput_per_s = good /
-- window_s. Without per-request targets a case has
-- no goodput (NULL).
-- window: first to last request start in the case or slice (seconds).
--
-- Why a request missed (causes): not completed -> 'error'. Else the first
-- target it missed (contract order) whose metric splits into components:
--   client_e2e_ms: network, application, queue, model
--   gateway_e2e_ms: application, queue, model; server_e2e_ms: queue, model
--   client_ttft_ms: ttft network, application, queue, model
--   server_ttft_ms: ttft queue, model
--   network_ms, application_ms, queue_ms, model_ms: themselves
-- and the component whose time is furthest above its median over the case
-- or slice (its excess, ms) made it miss. Model is 'model (prefill)' for a
-- TTFT target (model time before the first token is prefill) and, for an
-- E2E one, 'model (prefill)' or 'model (decode)' by which of prefill_ms and
-- decode_ms is further above its median, where both are known. A miss of a
-- target without components (tps_user, tpot_ms, ...) only, or whose
-- components are unknown, is 'not attributed'.
WITH chk AS (
    SELECT v.case_id, v.slice_key, v.request_id, v.target_id, t.metric,
        CASE WHEN v.value IS NULL THEN NULL
             WHEN t.op = '<=' THEN v.value <= t.target
             WHEN t.op = '<'  THEN v.value < t.target
             WHEN t.op = '>=' THEN v.value >= t.target
             WHEN t.op = '>'  THEN v.value > t.target END AS met
    FROM contract_values AS v
    JOIN contract_targets AS t ON t.case_id = v.case_id AND t.target_id = v.target_id
    WHERE t.per_request AND v.applies
),
per AS (
    SELECT c.case_id, c.slice_key, c.request_id,
        bool_or(c.met IS FALSE)                                    AS missed_any,
        bool_or(c.met IS NULL)                                     AS unknown_any,
        arg_min(c.metric, c.target_id) FILTER (WHERE c.met IS FALSE AND c.metric IN (
            'client_e2e_ms', 'gateway_e2e_ms', 'server_e2e_ms', 'client_ttft_ms', 'server_ttft_ms',
            'network_ms', 'application_ms', 'queue_ms', 'model_ms'))  AS miss_metric
    FROM chk AS c
    GROUP BY ALL
),
cases AS (
    SELECT case_id, count(*) FILTER (WHERE per_request) AS per_request_targets
    FROM contract_targets GROUP BY case_id
),
-- The medians (quantile_cont at 0.5, as median() gives them) from
-- contract_pct, the table pct_ci.sql makes of contract_ci_values.sql, in
-- memory bounded by DuckDB's memory limit.
med AS (
    SELECT g.case_id, g.slice_key,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'network')          AS network,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'application')      AS application,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'queue')            AS queue,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'model')            AS model,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'prefill')          AS prefill,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'decode')           AS decode,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'ttft_network')     AS ttft_network,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'ttft_application') AS ttft_application,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'ttft_queue')       AS ttft_queue,
        any_value(p.q[1]) FILTER (WHERE p.metric = 'ttft_model')       AS ttft_model
    FROM contract_ci_groups AS g
    LEFT JOIN contract_pct AS p ON p.gid = g.gid
    GROUP BY g.case_id, g.slice_key
),
req AS (
    SELECT m.*, p.missed_any, p.unknown_any, p.miss_metric, k.per_request_targets,
        CASE WHEN k.per_request_targets = 0 THEN NULL
             WHEN NOT m.completed OR p.missed_any IS TRUE THEN 'missed'
             WHEN p.unknown_any IS TRUE THEN 'unknown'
             ELSE 'good' END AS verdict
    FROM contract_members AS m
    JOIN cases AS k ON k.case_id = m.case_id
    LEFT JOIN per AS p ON p.case_id = m.case_id AND p.slice_key = m.slice_key AND p.request_id = m.request_id
),
-- The components of each missed, completed request's first decomposable
-- missed target, as excess over the median.
parts AS (
    SELECT r.case_id, r.slice_key, r.request_id, r.miss_metric,
        unnest(CASE r.miss_metric
            WHEN 'client_e2e_ms' THEN [
                {'c': 'network', 'x': r.network_ms - d.network},
                {'c': 'application', 'x': r.application_ms - d.application},
                {'c': 'queue', 'x': r.queue_ms - d.queue},
                {'c': 'model', 'x': r.model_ms - d.model}]
            WHEN 'gateway_e2e_ms' THEN [
                {'c': 'application', 'x': r.application_ms - d.application},
                {'c': 'queue', 'x': r.queue_ms - d.queue},
                {'c': 'model', 'x': r.model_ms - d.model}]
            WHEN 'server_e2e_ms' THEN [
                {'c': 'queue', 'x': r.queue_ms - d.queue},
                {'c': 'model', 'x': r.model_ms - d.model}]
            WHEN 'client_ttft_ms' THEN [
                {'c': 'network', 'x': r.ttft_network_ms - d.ttft_network},
                {'c': 'application', 'x': r.ttft_application_ms - d.ttft_application},
                {'c': 'queue', 'x': r.ttft_queue_ms - d.ttft_queue},
                {'c': 'model (prefill)', 'x': r.ttft_model_ms - d.ttft_model}]
            WHEN 'server_ttft_ms' THEN [
                {'c': 'queue', 'x': r.ttft_queue_ms - d.ttft_queue},
                {'c': 'model (prefill)', 'x': r.ttft_model_ms - d.ttft_model}]
            WHEN 'network_ms' THEN [{'c': 'network', 'x': r.network_ms - d.network}]
            WHEN 'application_ms' THEN [{'c': 'application', 'x': r.application_ms - d.application}]
            WHEN 'queue_ms' THEN [{'c': 'queue', 'x': r.queue_ms - d.queue}]
            WHEN 'model_ms' THEN [{'c': 'model', 'x': r.model_ms - d.model}]
        END, recursive := true),
        r.prefill_ms - d.prefill AS prefill_x,
        r.decode_ms - d.decode AS decode_x
    FROM req AS r
    JOIN med AS d ON d.case_id = r.case_id AND d.slice_key = r.slice_key
    WHERE r.verdict = 'missed' AND r.completed AND r.miss_metric IS NOT NULL
),
top AS (
    SELECT case_id, slice_key, request_id,
        arg_max(c, x) FILTER (WHERE x IS NOT NULL) AS c,
        any_value(miss_metric) AS miss_metric,
        any_value(prefill_x) AS prefill_x, any_value(decode_x) AS decode_x
    FROM parts
    GROUP BY ALL
),
cause AS (
    SELECT r.case_id, r.slice_key,
        CASE WHEN NOT r.completed THEN 'error'
             WHEN t.c IS NULL THEN 'not attributed'
             WHEN t.c = 'model' AND t.miss_metric IN ('client_e2e_ms', 'gateway_e2e_ms', 'server_e2e_ms', 'model_ms')
                  AND t.prefill_x IS NOT NULL AND t.decode_x IS NOT NULL
                  THEN CASE WHEN t.prefill_x > t.decode_x THEN 'model (prefill)' ELSE 'model (decode)' END
             ELSE t.c END AS cause
    FROM req AS r
    LEFT JOIN top AS t ON t.case_id = r.case_id AND t.slice_key = r.slice_key AND t.request_id = r.request_id
    WHERE r.verdict = 'missed'
),
causes AS (
    SELECT case_id, slice_key,
        list({'cause': cause, 'requests': n} ORDER BY n DESC, cause) AS causes
    FROM (SELECT case_id, slice_key, cause, count(*) AS n FROM cause GROUP BY ALL)
    GROUP BY ALL
)
SELECT *,
    CASE WHEN per_request_targets > 0 AND good + missed > 0 THEN good / (good + missed) END AS goodput_share,
    CASE WHEN per_request_targets > 0 THEN wilson_lo(good, good + missed) END AS goodput_lo,
    CASE WHEN per_request_targets > 0 THEN wilson_hi(good, good + missed) END AS goodput_hi,
    CASE WHEN per_request_targets > 0 AND window_s > 0 THEN good / window_s END AS goodput_per_s
FROM (
SELECT r.case_id, r.slice_key,
    count(*)                                                       AS requests,
    min(r.start)                                                   AS window_first,
    max(r.start)                                                   AS window_last,
    (epoch_ns(max(r.start)) - epoch_ns(min(r.start))) / 1e9        AS window_s,
    count(*) FILTER (WHERE r.completed)                            AS completed,
    any_value(r.per_request_targets)                               AS per_request_targets,
    count(*) FILTER (WHERE r.verdict = 'good')                     AS good,
    count(*) FILTER (WHERE r.verdict = 'missed')                   AS missed,
    count(*) FILTER (WHERE r.verdict = 'unknown')                  AS unknown,
    count(*) FILTER (WHERE r.verdict = 'missed' AND NOT r.completed) AS errors,
    count(*) FILTER (WHERE r.eval_rows > 0)                        AS evaluated,
    count(r.cost_usd)                                              AS priced,
    any_value(c.causes)                                            AS causes
FROM req AS r
LEFT JOIN causes AS c ON c.case_id = r.case_id AND c.slice_key = r.slice_key
GROUP BY r.case_id, r.slice_key
)
ORDER BY case_id, len(slice_key), slice_key
