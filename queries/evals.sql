-- evals.sql: the evals input (evals_input, checked by evals_check.sql) typed:
-- request_id, eval (NULL: unnamed), score DOUBLE, pass BOOLEAN (NULL where
-- the row gives none). A request may have one row per eval name.
SELECT
    trim(request_id)                                         AS request_id,
    nullif(trim(eval), '')                                   AS eval,
    TRY_CAST(nullif(trim(score), '') AS DOUBLE)              AS score,
    CASE WHEN lower(trim(pass)) IN ('true', '1', 'yes', 'pass', 't') THEN true
         WHEN lower(trim(pass)) IN ('false', '0', 'no', 'fail', 'f') THEN false END AS pass
FROM evals_input
