-- failure_ci_values.sql: the pct_values input of pct_ci.sql for the table
-- of requests left out of the latency percentiles: the client, gateway
-- and server E2E of every request that did not succeed, in its outcome's
-- group of failure_ci_groups.
UNPIVOT (
    SELECT g.gid,
        s.client_e2e_ms::DOUBLE AS client_e2e,
        s.gateway_e2e_ms::DOUBLE AS gateway_e2e,
        s.server_e2e_ms::DOUBLE AS server_e2e
    FROM sliced AS s
    JOIN failure_ci_groups AS g ON g.grp[1] = s.outcome
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
