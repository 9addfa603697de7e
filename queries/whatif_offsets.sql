-- whatif_offsets.sql: how far each replica's clock is from each gateway
-- host's, from the requests they share (whatif_requests): a request
-- reaches the server after the gateway forwarded it, so for every request
-- arr_ns - g_up_ns = (replica clock - gateway clock) + the hop, and the
-- smallest over the pair's requests is the offset plus the shortest hop
-- (the hop is a fraction of a millisecond on one network). whatif puts
-- every replica's arrivals on one gateway's clock with it, so that
-- arrivals at different replicas can be ordered; no latency figure uses
-- it. Drift is ignored (10 ppm is 0.6 ms a minute).
SELECT replica, gateway_host, count(*) AS n, min(arr_ns - g_up_ns) AS min_delta_ns
FROM whatif_requests
WHERE gateway_host IS NOT NULL AND g_up_ns IS NOT NULL
GROUP BY replica, gateway_host
ORDER BY replica, gateway_host
