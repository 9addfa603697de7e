-- slice_ci_groups.sql: the pct_groups input of pct_ci.sql for the latency by
-- slice tables: the all-requests row (gid 0, grp_all) and one group per
-- slice of the sliced view (grp: its slice_key).
SELECT 0::INTEGER AS gid, true AS grp_all, NULL::VARCHAR[] AS grp, NULL AS part
UNION ALL
SELECT (row_number() OVER ())::INTEGER AS gid, false AS grp_all, slice_key AS grp, NULL AS part
FROM (SELECT DISTINCT slice_key FROM sliced)
