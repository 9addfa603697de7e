-- phase_ci_groups.sql: the pct_groups input of pct_ci.sql for the Phases
-- table: one group per phase (grp: [phase]), as phases.sql lists them.
SELECT ord::INTEGER AS gid, false AS grp_all, [phase] AS grp, NULL AS part
FROM (VALUES ('cold', 1), ('burst', 2), ('steady', 3)) AS p(phase, ord)
