-- joins.sql: how the tiers joined, per pair of tiers and join method, over
-- the requests view (DIR/requests.parquet). One row per pair and method:
--   client-gateway: requests with both records, by client_join (how the
--     client record found the request: 'id', 'response_id', 'trace_id',
--     'trace_order');
--   gateway-server: requests with both records, by gateway_join, or 'time'
--     when the server record was matched by time (TGI);
--   client-server: requests with both records, by client_join (directly or
--     through the gateway record).
-- The pair's totals (requests with each tier) come from coverage.sql.
WITH p AS (
    SELECT 1 AS ord, 'client-gateway' AS pair, client_join AS method
    FROM requests WHERE has_client AND has_gateway
    UNION ALL
    SELECT 2, 'gateway-server',
           CASE WHEN server_join = 'time' THEN 'time' ELSE gateway_join END
    FROM requests WHERE has_gateway AND has_server
    UNION ALL
    SELECT 3, 'client-server', client_join
    FROM requests WHERE has_client AND has_server
)
SELECT pair, coalesce(method, '?') AS method, count(*) AS requests
FROM p
GROUP BY ord, pair, method
ORDER BY ord, requests DESC, method
