-- Those traces' records on each tier: few, often none, so that the steps
-- below read the kept records of the other tier only for the IDs these
-- hold (and not at all when they hold none).
--
-- reads: gateway_n, gateway_trn
-- writes: gateway_trc
CREATE OR REPLACE TEMP TABLE gateway_trc AS
SELECT rid, request_id, trace_id, start_time, fid, line, n
FROM gateway_n SEMI JOIN gateway_trn USING (trace_id);
