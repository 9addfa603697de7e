-- prices_check.sql: the first problems of the prices input (prices_input),
-- each with its row. A row names a model and either token prices
-- (input_per_mtok and output_per_mtok: USD per million prompt and output
-- tokens) or a GPU-hour price with the replica count serving the model
-- (gpu_hour: USD per replica-hour; replicas), not both; prices are finite
-- and not negative, replicas a positive integer; one row per model.
WITH r AS (
    SELECT ord, nullif(trim(model), '') AS model,
        nullif(trim(input_per_mtok), '')  AS i,
        nullif(trim(output_per_mtok), '') AS o,
        nullif(trim(gpu_hour), '')        AS g,
        nullif(trim(replicas), '')        AS n
    FROM prices_input
),
bad AS (
    SELECT ord, 'no model' AS reason FROM r WHERE model IS NULL
    UNION ALL
    SELECT ord, 'model ' || model || ': give input_per_mtok and output_per_mtok, or gpu_hour and replicas, not both'
    FROM r WHERE model IS NOT NULL
      AND NOT ((i IS NOT NULL AND o IS NOT NULL AND g IS NULL AND n IS NULL)
            OR (i IS NULL AND o IS NULL AND g IS NOT NULL AND n IS NOT NULL))
    UNION ALL
    SELECT ord, c || ' ' || v || ' is not a price (a number, 0 or more)'
    FROM (SELECT ord, unnest(['input_per_mtok', 'output_per_mtok', 'gpu_hour']) AS c, unnest([i, o, g]) AS v FROM r)
    WHERE v IS NOT NULL AND (TRY_CAST(v AS DOUBLE) IS NULL OR NOT isfinite(TRY_CAST(v AS DOUBLE)) OR TRY_CAST(v AS DOUBLE) < 0)
    UNION ALL
    SELECT ord, 'replicas ' || n || ' is not a positive integer' FROM r
    WHERE n IS NOT NULL AND coalesce(TRY_CAST(n AS BIGINT) <= 0, true)
    UNION ALL
    SELECT ord, 'model ' || model || ' has a second row (the first is row ' || first_ord || ')'
    FROM (SELECT ord, model, min(ord) OVER (PARTITION BY model) AS first_ord FROM r WHERE model IS NOT NULL)
    WHERE ord > first_ord
)
SELECT ord, reason, count(*) OVER () AS problems
FROM bad
ORDER BY ord, reason
LIMIT 5
