-- replica_ci_groups.sql: the pct_groups input of pct_ci.sql for the
-- Replicas table: one group per replica of a request with a server record
-- (grp: [replica]), as replicas.sql lists them.
SELECT (row_number() OVER ())::INTEGER AS gid, false AS grp_all, [replica] AS grp, NULL AS part
FROM (
    SELECT DISTINCT replica
    FROM requests
    WHERE has_server AND replica IS NOT NULL
)
