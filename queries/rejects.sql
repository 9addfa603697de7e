-- rejects.sql: rejected input lines counted by tier, file and kind, with at
-- most 5 example locations each as 'file:line: reason' (first lines first).
-- The raw line is never read: it may contain prompt text. Reasons are cut to
-- 160 characters.
-- The examples are ranked by a window (a sort, which spills) and only the
-- first 5 of each group are listed, so no group's lines are ever held in
-- one aggregate's state.
WITH r AS (
    SELECT
        coalesce(tier, '') AS tier,
        coalesce(file, '') AS file,
        coalesce(kind, '') AS kind,
        concat(coalesce(file, '?'), ':', coalesce(line::VARCHAR, '?'), ': ',
               left(coalesce(reason, ''), 160)) AS example,
        row_number() OVER (PARTITION BY coalesce(tier, ''), coalesce(file, ''), coalesce(kind, '')
                           ORDER BY line NULLS LAST, reason) AS rk
    FROM rejects
)
SELECT
    tier,
    file,
    kind,
    count(*)           AS lines,
    list(example ORDER BY rk) FILTER (WHERE rk <= 5) AS examples
FROM r
GROUP BY ALL
ORDER BY tier, file, kind
