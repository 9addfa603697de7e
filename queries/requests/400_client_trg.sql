-- client_trg: the kept gateway records of the traces client_tr numbers.
--
-- reads: client_tr, gateway_k
-- writes: client_trg
CREATE OR REPLACE TEMP TABLE client_trg AS
SELECT request_id, trace_id, start_time, fid, line, n
FROM gateway_k
WHERE trace_id IN (SELECT trace_id FROM client_tr);
