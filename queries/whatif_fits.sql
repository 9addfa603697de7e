-- whatif_fits.sql: decoding's dependence on load, per model and replica
-- (replica NULL: all the model's replicas together), fitted by least
-- squares on the requests outside a warm-up (phase <> 'cold'):
--   tpot_ms = tpot_intercept + tpot_slope * (batch - 1), the decode time
--   per token against the batch the request joined (whatif_requests.sql),
--   so tpot_slope / tpot_intercept is how much slower each further running
--   request makes decoding.
-- r2 is the share of the variance the line explains; n the requests used.
-- Prefill's dependence on the prompt and the batch together, a product no
-- one line fits, is fitted by analyze/whatif (fitPrefill) on the same rows.
SELECT model, replica,
    count(tpot_ms) AS tpot_n,
    regr_intercept(tpot_ms, batch - 1) AS tpot_intercept,
    regr_slope(tpot_ms, batch - 1) AS tpot_slope,
    regr_r2(tpot_ms, batch - 1) AS tpot_r2
FROM whatif_requests
WHERE phase <> 'cold'
GROUP BY GROUPING SETS ((model, replica), (model))
ORDER BY model, replica NULLS FIRST
