-- noid_servers.sql: the server side (match_t) of the time match of gateway
-- records that log no request ID (noid_gateways.sql) to server records
-- (match_candidates.sql says how they are paired): the timing server
-- records (a request ID, format not vllm-log) whose request ID no gateway
-- record logs, nor their trace ID (a gateway record of the trace joins
-- them by trace), with an end and an E2E (e2e_ns, else end - arrival; arrival
-- = end - e2e), the kept one per request ID (latest arrival, as in
-- queries/requests). t_key is the request ID, which a matched gateway record
-- takes (gateway_matched.sql); t_ord its hash. A server host is its
-- replica label, else its log file. Without gateway records to match, no
-- server record is read.
SELECT s.request_id AS t_key,
       hash(s.request_id) AS t_ord,
       coalesce(s.replica, s.source_file) AS t_host,
       s.replica,
       epoch_ns(s.end_time) AS t_end,
       coalesce(s.e2e_ns, epoch_ns(s.end_time) - epoch_ns(s.arrival_time)) AS t_e2e
FROM server_logged AS s
WHERE EXISTS (SELECT 1 FROM gateway
              WHERE nullif(request_id, '') IS NULL AND nullif(trace_id, '') IS NULL AND start_time IS NOT NULL)
  AND nullif(s.request_id, '') IS NOT NULL AND s.format IS DISTINCT FROM 'vllm-log'
  AND s.end_time IS NOT NULL
  AND coalesce(s.e2e_ns, epoch_ns(s.end_time) - epoch_ns(s.arrival_time)) >= 0
  AND s.request_id NOT IN (SELECT request_id FROM gateway WHERE nullif(request_id, '') IS NOT NULL)
  AND (nullif(s.trace_id, '') IS NULL
       OR s.trace_id NOT IN (SELECT trace_id FROM gateway WHERE nullif(trace_id, '') IS NOT NULL))
QUALIFY row_number() OVER (
    PARTITION BY s.request_id
    ORDER BY s.arrival_time DESC NULLS LAST, s.end_time DESC NULLS LAST,
             s.source_file DESC, s.source_line DESC) = 1
