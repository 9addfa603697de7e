-- failure_ci_groups.sql: the pct_groups input of pct_ci.sql for the table
-- of requests left out of the latency percentiles (failures.sql): one
-- group per outcome of the sliced view (grp: [outcome], see
-- request_outcome in macros.sql), over all requests.
SELECT (row_number() OVER (ORDER BY outcome))::INTEGER AS gid, false AS grp_all, [outcome] AS grp, NULL AS part
FROM (SELECT DISTINCT outcome FROM sliced WHERE NOT succeeded)
