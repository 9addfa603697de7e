-- rejects.sql: rejected input lines counted by tier, file and kind, with at
-- most 5 example locations each as 'file:line: reason' (first lines first).
-- The raw line is never read: it may contain prompt text. Reasons are cut to
-- 160 characters.
SELECT
    coalesce(tier, '') AS tier,
    coalesce(file, '') AS file,
    coalesce(kind, '') AS kind,
    count(*)           AS lines,
    list(concat(coalesce(file, '?'), ':', coalesce(line::VARCHAR, '?'), ': ',
                left(coalesce(reason, ''), 160))
         ORDER BY line NULLS LAST, reason)[1:5] AS examples
FROM rejects
GROUP BY ALL
ORDER BY tier, file, kind
