-- aborted.sql: requests whose client left before the response ended
-- (aborted, see queries/requests), over the requests view, and the server's
-- work on them after the client left (wasted_ms). with_wasted counts those
-- that have a wasted_ms (a server record and a tier in front of it);
-- outlived those whose server went on after the gateway had ended, whose
-- network and application time is therefore NULL. wasted_ms_p50 (as
-- quantile_cont gives it) comes from aborted_pct, the table pct_ci.sql
-- makes of aborted_ci_values.sql, in memory bounded by DuckDB's memory
-- limit.
SELECT
    count(*)                                           AS n_aborted,
    count(wasted_ms)                                   AS with_wasted,
    count(*) FILTER (WHERE wasted_ms > 0)              AS wasted_some,
    sum(wasted_ms)                                     AS wasted_ms_total,
    (SELECT any_value(q[1]) FROM aborted_pct)          AS wasted_ms_p50,
    max(wasted_ms)                                     AS wasted_ms_max,
    count(*) FILTER (WHERE has_gateway AND has_server AND network_ms IS NULL
                       AND application_ms IS NULL)     AS unsplit
FROM requests
WHERE aborted
