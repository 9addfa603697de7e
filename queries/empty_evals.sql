-- empty_evals.sql: the typed, empty evals input (--evals): every column
-- as text, checked by evals_check.sql before evals.sql converts it. ord is
-- the row's position in the file (1 = first data row).
SELECT
    NULL::BIGINT  AS ord,
    NULL::VARCHAR AS request_id,
    NULL::VARCHAR AS eval,
    NULL::VARCHAR AS score,
    NULL::VARCHAR AS pass
LIMIT 0
