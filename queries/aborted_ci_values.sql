-- aborted_ci_values.sql: the pct_values input of pct_ci.sql for the median
-- wasted_ms of aborted.sql: the wasted_ms of every aborted request (NULL
-- is no sample), in the one group of aborted_ci_groups.
SELECT 1::INTEGER AS gid, 'wasted_ms' AS metric, wasted_ms::DOUBLE AS value
FROM requests
WHERE aborted
