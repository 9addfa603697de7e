-- slice_ci_values.sql: the ci_values input of pct_ci.sql for the latency
-- by slice tables: every sample of slice_dists.sql's metrics (the same
-- sample sets: TTFTs of streamed requests only), once in its slice and
-- once in the all-requests row.
WITH v AS (
    UNPIVOT (
        SELECT slice_key,
            client_e2e_ms::DOUBLE AS client_e2e,
            gateway_e2e_ms::DOUBLE AS gateway_e2e,
            server_e2e_ms::DOUBLE AS server_e2e,
            (CASE WHEN streamed IS TRUE THEN client_ttft_ms END)::DOUBLE AS client_ttft,
            (CASE WHEN streamed IS TRUE THEN server_ttft_ms END)::DOUBLE AS server_ttft,
            (CASE WHEN streamed IS TRUE THEN gateway_ttft_ms END)::DOUBLE AS gateway_ttft,
            (CASE WHEN streamed IS TRUE THEN gateway_upstream_ttfb_ms END)::DOUBLE AS gateway_upstream_ttfb,
            tps_user::DOUBLE AS tps_user
        FROM sliced
    ) ON COLUMNS(* EXCLUDE (slice_key)) INTO NAME metric VALUE value
)
SELECT false AS grp_all, slice_key AS grp, metric, value FROM v
UNION ALL
SELECT true AS grp_all, NULL::VARCHAR[] AS grp, metric, value FROM v
