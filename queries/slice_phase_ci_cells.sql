-- slice_phase_ci_cells.sql: the pct_cells input of pct_ci.sql for the
-- samples of slice_phase_ci_values.sql: the groups each cell's samples
-- count in, as (cell, tbl, gid, metric), gid of the table tbl's groups
-- (slice_ci_groups or phase_ci_groups), metric NULL for every metric. The
-- cell (slice << 8) + phase counts in its slice and in all requests, and
-- for the metrics of phases.sql but model per token (a cell of
-- replica_phase_ci_values.sql) in its phase (0: none; the phase_ci_groups
-- gids are 1 to 3).
WITH
c AS (
    SELECT s.gid AS slice, p.phase, (s.gid::BIGINT << 8) + p.phase AS cell
    FROM slice_ci_groups AS s,
         (SELECT gid AS phase FROM phase_ci_groups UNION ALL SELECT 0) AS p
    WHERE NOT s.grp_all
),
phase_metrics AS (
    SELECT unnest(['client_e2e', 'client_ttft', 'queue', 'model', 'network', 'application', 'upstream',
                   'network_application', 'unsplit']) AS metric
)
SELECT cell, 'slice' AS tbl, slice AS gid, NULL::VARCHAR AS metric FROM c
UNION ALL
SELECT c.cell, 'slice' AS tbl, a.gid, NULL::VARCHAR AS metric
FROM c, slice_ci_groups AS a
WHERE a.grp_all
UNION ALL
SELECT c.cell, 'phase' AS tbl, c.phase AS gid, m.metric FROM c, phase_metrics AS m
WHERE c.phase > 0
