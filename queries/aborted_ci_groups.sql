-- aborted_ci_groups.sql: the pct_groups input of pct_ci.sql for the median
-- wasted_ms of aborted.sql: one group, the aborted requests.
SELECT 1::INTEGER AS gid, false AS grp_all, NULL::VARCHAR[] AS grp, NULL AS part
