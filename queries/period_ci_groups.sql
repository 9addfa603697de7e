-- period_ci_groups.sql: the pct_groups input of pct_ci.sql for the trend
-- (periods.sql): one group per period and slice of the sliced view with a
-- request starting in it (grp: slice_key, part: the period, as periods.sql
-- computes it), and per period its all-requests row (grp_all).
WITH p AS (
    SELECT DISTINCT
        CASE WHEN u.unit = 'week' THEN date_trunc('week', s.start) ELSE date_trunc('day', s.start) END AS period,
        s.slice_key
    FROM sliced AS s, (SELECT any_value(unit) AS unit FROM period_unit) AS u
    WHERE s.start IS NOT NULL
)
SELECT (row_number() OVER ())::INTEGER AS gid, false AS grp_all, slice_key AS grp, period AS part
FROM p
UNION ALL
SELECT (-row_number() OVER ())::INTEGER AS gid, true AS grp_all, NULL::VARCHAR[] AS grp, period AS part
FROM (SELECT DISTINCT period FROM p)
