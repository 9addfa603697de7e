-- server_trc: the kept server records of the traces gateway_trn holds.
--
-- reads: gateway_trn, server_k
-- writes: server_trc
CREATE OR REPLACE TEMP TABLE server_trc AS
SELECT request_id, trace_id, arrival_time, fid, line
FROM server_k SEMI JOIN gateway_trn USING (trace_id);
