-- replica_phase_ci_cells.sql: the pct_cells input of pct_ci.sql for the
-- samples of replica_phase_ci_values.sql: the groups each cell's samples
-- count in, as (cell, tbl, gid, metric), gid of the table tbl's groups
-- (replica_ci_groups or phase_ci_groups), metric NULL for every metric.
-- The cell (replica << 8) + phase counts in its replica (0: none) and, for
-- model per token, in its phase (0: none; the phase_ci_groups gids are 1
-- to 3); a cell of neither counts nowhere.
WITH
c AS (
    SELECT r.replica, p.phase, (r.replica::BIGINT << 8) + p.phase AS cell
    FROM (SELECT gid AS replica FROM replica_ci_groups UNION ALL SELECT 0) AS r,
         (SELECT gid AS phase FROM phase_ci_groups UNION ALL SELECT 0) AS p
)
SELECT cell, 'replica' AS tbl, replica AS gid, NULL::VARCHAR AS metric FROM c
WHERE replica > 0
UNION ALL
SELECT cell, 'phase' AS tbl, phase AS gid, 'model_per_token' AS metric FROM c
WHERE phase > 0
