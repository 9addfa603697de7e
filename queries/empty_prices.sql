-- empty_prices.sql: the typed, empty prices input (--prices), as text,
-- checked by prices_check.sql before prices.sql converts it.
SELECT
    NULL::BIGINT  AS ord,
    NULL::VARCHAR AS model,
    NULL::VARCHAR AS input_per_mtok,
    NULL::VARCHAR AS output_per_mtok,
    NULL::VARCHAR AS gpu_hour,
    NULL::VARCHAR AS replicas
LIMIT 0
