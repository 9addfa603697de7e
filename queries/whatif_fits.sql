-- whatif_fits.sql: the service times' dependence on load, per model and
-- replica (replica NULL: all the model's replicas together), fitted by
-- least squares on the requests outside a warm-up (phase <> 'cold'):
--   decode: tpot_ms = tpot_intercept + tpot_slope * (batch - 1), the
--     decode time per token against the batch the request joined
--     (whatif_requests.sql), so tpot_slope / tpot_intercept is how much
--     slower each further running request makes decoding;
--   prefill: prefill_ms = prefill_intercept + prefill_per_token *
--     prompt_tokens (shown as evidence; the replay keeps each request's
--     own prefill).
-- r2 is the share of the variance the line explains; n the requests used.
SELECT model, replica,
    count(tpot_ms) AS tpot_n,
    regr_intercept(tpot_ms, batch - 1) AS tpot_intercept,
    regr_slope(tpot_ms, batch - 1) AS tpot_slope,
    regr_r2(tpot_ms, batch - 1) AS tpot_r2,
    count(prefill_ms) AS prefill_n,
    regr_intercept(prefill_ms, prompt_tokens) AS prefill_intercept,
    regr_slope(prefill_ms, prompt_tokens) AS prefill_per_token,
    regr_r2(prefill_ms, prompt_tokens) AS prefill_r2
FROM whatif_requests
WHERE phase <> 'cold'
GROUP BY GROUPING SETS ((model, replica), (model))
ORDER BY model, replica NULLS FIRST
