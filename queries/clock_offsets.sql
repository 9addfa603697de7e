-- clock_offsets.sql: each client and server host's clock offset against
-- each gateway host it shares requests with, estimated from the data as
-- distributed-tracing systems do: a request cannot reach a tier before it
-- left the previous one. Reads the explain_records table
-- (explain_records.sql); requests with a retry on a tier (more than one
-- record) are left out, since their records need not be one attempt.
--
-- offset = the host's clock minus the gateway's (ms). True times obey
--   client start <= gateway start, gateway end <= client end,
--   gateway upstream_start <= server arrival, server end <= gateway
--   upstream_end,
-- so for every request
--   client: offset >= c_start - g_start, and offset <= c_end - g_end when
--     the client received the response: it logged a status other than 0
--     and 408, or no status and no error (a client that timed out or was
--     cancelled ended first; native logs read a status 0 as none);
--   server: offset <= s_arrival - g_upstream_start, and offset >= s_end -
--     g_upstream_end when the gateway got the whole upstream response
--     (its status is not 0, 408 or 499: a gateway whose client left may
--     cut the upstream short).
-- lower_ms = the largest lower bound, upper_ms = the smallest upper bound
-- over the host pair's requests (the tightest); offset_ms = their
-- midpoint, uncertainty_ms = half their distance: the true offset lies
-- within offset_ms +/- uncertainty_ms whatever the network legs, and at
-- the midpoint when the fastest request's two legs are equally long.
-- Bounds are taken per minute of the gateway's clock (minute: the
-- minute of the gateway start), so that clocks drifting apart (10 ppm is
-- 0.6 ms a minute) move the bounds little. When a minute's bounds cross by
-- up to 5 ms (drift within the minute against a hop of a fraction of a
-- ms), offset_ms is still their midpoint and uncertainty_ms half the
-- crossing; crossed_ms says by how much. offset_ms is NULL when a bound
-- is missing or they cross by more (a clock that stepped).
-- Offsets only place the tiers on one drawing; no latency figure uses
-- them (every component is a difference of one host's times).
WITH b AS (
    SELECT 'client' AS tier, client_host AS host, gateway_host, date_trunc('minute', g_start) AS minute,
        epoch_ns(c_start) - epoch_ns(g_start) AS lo,
        CASE WHEN (c_status IS NOT NULL AND c_status NOT IN (0, 408)) OR (c_status IS NULL AND c_error IS NULL)
             THEN epoch_ns(c_end) - epoch_ns(g_end) END AS hi
    FROM explain_records
    WHERE client_host IS NOT NULL AND client_records = 1 AND gateway_records = 1
    UNION ALL
    SELECT 'server', server_host, gateway_host, date_trunc('minute', g_start),
        CASE WHEN g_status IS DISTINCT FROM 0 AND g_status IS DISTINCT FROM 408 AND g_status IS DISTINCT FROM 499
             THEN epoch_ns(s_end) - epoch_ns(g_up_end) END,
        epoch_ns(s_arrival) - epoch_ns(g_up_start)
    FROM explain_records
    WHERE server_host IS NOT NULL AND server_records = 1 AND gateway_records = 1
),
a AS (
    SELECT tier, host, gateway_host, minute, count(lo) AS n_lower, count(hi) AS n_upper,
        max(lo) / 1e6 AS lower_ms, min(hi) / 1e6 AS upper_ms
    FROM b
    GROUP BY tier, host, gateway_host, minute
)
SELECT tier, host, gateway_host, minute, n_lower, n_upper, lower_ms, upper_ms,
    CASE WHEN lower_ms <= upper_ms + 5 THEN (lower_ms + upper_ms) / 2 END AS offset_ms,
    CASE WHEN lower_ms <= upper_ms + 5 THEN abs(upper_ms - lower_ms) / 2 END AS uncertainty_ms,
    CASE WHEN lower_ms > upper_ms THEN lower_ms - upper_ms END AS crossed_ms
FROM a
ORDER BY gateway_host, tier, host, minute
