-- coverage.sql: how well the tiers join, over the requests view
-- (DIR/requests.parquet). A request "has" a tier when that tier logged at
-- least one record that joined it (by ID, response ID or trace, see
-- queries/requests). retried counts requests with more than one distinct record
-- on any tier; anomalous counts rows with an anomaly reason. joins.sql
-- breaks the pairs down by join method, unjoined.sql counts the records
-- that joined no other tier.
SELECT
    count(*)                                                        AS requests,
    count(*) FILTER (WHERE has_client)                              AS client,
    count(*) FILTER (WHERE has_gateway)                             AS gateway,
    count(*) FILTER (WHERE has_server)                              AS server,
    count(*) FILTER (WHERE has_client AND has_gateway)              AS client_gateway,
    count(*) FILTER (WHERE has_gateway AND has_server)              AS gateway_server,
    count(*) FILTER (WHERE has_client AND has_server)               AS client_server,
    count(*) FILTER (WHERE has_client AND has_gateway AND has_server) AS all_tiers,
    count(*) FILTER (WHERE client_records > 1 OR gateway_records > 1
                        OR server_records > 1)                      AS retried,
    count(*) FILTER (WHERE anomaly IS NOT NULL)                     AS anomalous
FROM requests
