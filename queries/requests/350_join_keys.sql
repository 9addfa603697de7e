-- The keys a client record can join: kept gateway and server records.
--
-- reads: gateway_k, server_k
-- writes: join_keys
CREATE OR REPLACE TEMP VIEW join_keys AS
SELECT request_id AS key FROM gateway_k
UNION ALL
SELECT request_id FROM server_k;
