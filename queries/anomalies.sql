-- anomalies.sql: anomalous requests counted by reason. A request with
-- several reasons counts once under each of them.
SELECT reason, count(*) AS requests
FROM (
    SELECT unnest(string_split(anomaly, '; ')) AS reason
    FROM requests
    WHERE anomaly IS NOT NULL
)
GROUP BY reason
ORDER BY requests DESC, reason
