-- gateway_k: the kept gateway record of each request key: the records of
-- the keys held once, as they are, and the winners of the others
-- (gateway_win). Not written itself: each step that reads it reads the
-- columns of gateway_j it needs.
--
-- reads: gateway_j, gateway_multi, gateway_win
-- writes: gateway_k
CREATE OR REPLACE TEMP VIEW gateway_k AS
SELECT *, 1::BIGINT AS n_records
FROM gateway_j ANTI JOIN gateway_multi USING (request_id)
UNION ALL
SELECT * FROM gateway_win;
