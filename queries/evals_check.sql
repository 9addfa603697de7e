-- evals_check.sql: the first problems of the evals input (the evals_input
-- table: empty_evals.sql's columns, as text, one row per row of the file),
-- each with its row: a row needs a request_id and a score or a pass; a
-- score is a finite number; a pass is true/false, 1/0, yes/no or pass/fail
-- (any case); one request has at most one row per eval name. An empty
-- result means the file is good.
WITH r AS (
    SELECT ord, request_id, eval, score, pass,
        nullif(trim(request_id), '')                         AS id,
        nullif(trim(score), '')                              AS s,
        nullif(lower(trim(pass)), '')                        AS p
    FROM evals_input
),
bad AS (
    SELECT ord, 'no request_id' AS reason FROM r WHERE id IS NULL
    UNION ALL
    SELECT ord, 'neither score nor pass' FROM r WHERE id IS NOT NULL AND s IS NULL AND p IS NULL
    UNION ALL
    SELECT ord, 'score ' || s || ' is not a finite number' FROM r
    WHERE s IS NOT NULL AND (TRY_CAST(s AS DOUBLE) IS NULL OR NOT isfinite(TRY_CAST(s AS DOUBLE)))
    UNION ALL
    SELECT ord, 'pass ' || p || ' is not true or false' FROM r
    WHERE p IS NOT NULL AND p NOT IN ('true', 'false', '1', '0', 'yes', 'no', 'pass', 'fail', 't', 'f')
    UNION ALL
    SELECT ord, 'request ' || id || ' has a second row for ' ||
        CASE WHEN eval IS NULL OR trim(eval) = '' THEN 'the unnamed eval' ELSE 'eval ' || trim(eval) END ||
        ' (the first is row ' || first_ord || ')'
    FROM (
        SELECT ord, id, eval,
            min(ord) OVER (PARTITION BY id, coalesce(trim(eval), '')) AS first_ord
        FROM r WHERE id IS NOT NULL
    )
    WHERE ord > first_ord
)
SELECT ord, reason, count(*) OVER () AS problems
FROM bad
ORDER BY ord, reason
LIMIT 5
