-- period_ci_values.sql: the pct_values input of pct_ci.sql for the trend:
-- every sample of the percentiles of periods.sql (the same sample sets:
-- client TTFT of streamed requests only), in its period and slice's group
-- of period_ci_groups (pct_ci.sql counts it in its period's all-requests
-- row too). Successful requests only (sliced_ok: completed and not
-- aborted, request_outcome in macros.sql), as periods.sql's n.
UNPIVOT (
    SELECT g.gid,
        s.client_e2e_ms::DOUBLE AS client_e2e,
        (CASE WHEN s.streamed IS TRUE THEN s.client_ttft_ms END)::DOUBLE AS client_ttft,
        s.tps_user::DOUBLE AS tps_user,
        s.network_ms::DOUBLE AS network,
        s.application_ms::DOUBLE AS application,
        s.queue_ms::DOUBLE AS queue,
        s.model_ms::DOUBLE AS model
    FROM (
        SELECT CASE WHEN u.unit = 'week' THEN date_trunc('week', r.start) ELSE date_trunc('day', r.start) END AS period,
            r.slice_key, r.client_e2e_ms, r.streamed, r.client_ttft_ms, r.tps_user,
            r.network_ms, r.application_ms, r.queue_ms, r.model_ms
        FROM sliced_ok AS r, (SELECT any_value(unit) AS unit FROM period_unit) AS u
        WHERE r.start IS NOT NULL
    ) AS s
    JOIN period_ci_groups AS g
        ON NOT g.grp_all AND g.part = s.period AND g.grp IS NOT DISTINCT FROM s.slice_key
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
