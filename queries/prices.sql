-- prices.sql: the prices input (prices_input, checked by prices_check.sql)
-- typed: per model, USD per million prompt and output tokens, or USD per
-- replica-hour and the replica count.
SELECT
    trim(model)                                              AS model,
    TRY_CAST(nullif(trim(input_per_mtok), '') AS DOUBLE)     AS input_per_mtok,
    TRY_CAST(nullif(trim(output_per_mtok), '') AS DOUBLE)    AS output_per_mtok,
    TRY_CAST(nullif(trim(gpu_hour), '') AS DOUBLE)           AS gpu_hour,
    TRY_CAST(nullif(trim(replicas), '') AS BIGINT)           AS replicas
FROM prices_input
