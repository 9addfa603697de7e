-- contract_ci_groups.sql: the pct_groups input of pct_ci.sql for the
-- medians of contract_goodput.sql: one group per use case and slice of
-- contract_members (case_id, slice_key; grp: the slice_key).
SELECT (row_number() OVER ())::INTEGER AS gid, false AS grp_all, slice_key AS grp, NULL AS part,
    case_id, slice_key
FROM (SELECT DISTINCT case_id, slice_key FROM contract_members)
