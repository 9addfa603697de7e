-- empty_rejects.sql: the typed, empty rejects table. The raw text of a
-- rejected line is deliberately not a column: it may hold prompts and is
-- never read by analysis or shown in a report.
SELECT
    NULL::VARCHAR AS tier,
    NULL::VARCHAR AS file,
    NULL::BIGINT  AS line,
    NULL::VARCHAR AS kind,
    NULL::VARCHAR AS reason
LIMIT 0
