-- explain_components.sql: each explained request's (explain_ids) latency
-- and components from requests.parquet beside the P50 and P95 of its
-- slice: the requests with its values of the --by columns (the sliced
-- view's slice_key, as in slices.sql; by default model and use case, the
-- report's slicing), over the report's samples (TTFT figures of streamed requests
-- only; a request's own value is shown whatever it is). One row per
-- request and metric, in explain_ids order. slice_p50_small and
-- slice_p95_small: pct_too_small (macros.sql) of the slice's n, so that
-- P50 or P95 is "n too small" and no figure is called above it.
-- slice_p95_hi: the upper bound of the 95% interval of the slice's P95,
-- the order statistic of rank pct_hi_rank(n, 0.95) (macros.sql, as
-- pct_ci.sql); NULL (open) when that rank is beyond n (fewer than 110
-- samples) or the P95 is too small. explain reads it for the noise rule
-- of "above P95" (docs/compare.md).
WITH
long AS (
    SELECT request_id, slice_key, streamed, unnest([
        {'metric': 'client_e2e',       'k': 1,  'v': client_e2e_ms},
        {'metric': 'network',          'k': 2,  'v': network_ms},
        {'metric': 'application',      'k': 3,  'v': application_ms},
        {'metric': 'queue',            'k': 4,  'v': queue_ms},
        {'metric': 'model',            'k': 5,  'v': model_ms},
        {'metric': 'prefill',          'k': 6,  'v': prefill_ms},
        {'metric': 'decode',           'k': 7,  'v': decode_ms},
        {'metric': 'client_ttft',      'k': 8,  'v': client_ttft_ms},
        {'metric': 'ttft_network',     'k': 9,  'v': ttft_network_ms},
        {'metric': 'ttft_application', 'k': 10, 'v': ttft_application_ms},
        {'metric': 'ttft_queue',       'k': 11, 'v': ttft_queue_ms},
        {'metric': 'ttft_model',       'k': 12, 'v': ttft_model_ms}
    ], recursive := true)
    FROM sliced
    WHERE slice_key IN (SELECT r.slice_key FROM sliced AS r JOIN explain_ids USING (request_id))
       OR request_id IN (SELECT request_id FROM explain_ids)
),
q AS (
    SELECT slice_key, metric,
        count(CASE WHEN k < 8 OR streamed IS TRUE THEN v END) AS slice_n,
        quantile_cont(CASE WHEN k < 8 OR streamed IS TRUE THEN v END, [0.5, 0.95]) AS slice_q,
        list_sort(list(v) FILTER (WHERE v IS NOT NULL AND (k < 8 OR streamed IS TRUE))) AS slice_sorted
    FROM long
    GROUP BY slice_key, metric
)
SELECT i.ord, l.request_id, l.slice_key, l.metric, l.k, l.v AS value, q.slice_n, q.slice_q[1] AS slice_p50, q.slice_q[2] AS slice_p95,
    coalesce(pct_too_small(q.slice_n, 0.5), true) AS slice_p50_small,
    coalesce(pct_too_small(q.slice_n, 0.95), true) AS slice_p95_small,
    CASE WHEN NOT pct_too_small(q.slice_n, 0.95) AND pct_hi_rank(q.slice_n, 0.95) <= q.slice_n
        THEN q.slice_sorted[pct_hi_rank(q.slice_n, 0.95)::BIGINT] END AS slice_p95_hi
FROM explain_ids AS i
JOIN long AS l USING (request_id)
LEFT JOIN q ON q.slice_key IS NOT DISTINCT FROM l.slice_key AND q.metric = l.metric
ORDER BY i.ord, l.k
