-- client_trs: the kept server records of the traces client_tr numbers that
-- the gateway did not log, but those the gateway logged the request of.
--
-- reads: client_tr, client_trg, gateway_k, server_k
-- writes: client_trs
CREATE OR REPLACE TEMP TABLE client_trs AS
SELECT s.request_id, s.trace_id, s.arrival_time, s.fid, s.line
FROM (SELECT * FROM server_k
      WHERE trace_id IN (SELECT trace_id FROM client_tr)
        AND trace_id NOT IN (SELECT trace_id FROM client_trg)) AS s
ANTI JOIN gateway_k AS g ON g.request_id = s.request_id;
