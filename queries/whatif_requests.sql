-- whatif_requests.sql: the requests infertrace whatif replays, one row per
-- request of requests.parquet with a server record, its times found again
-- in the server and gateway tables by its source 'file:line' and, for a
-- server record joined by ID, its request ID (the spans of one OTLP line
-- share a source); a source whose rows disagree is ambiguous and gives no
-- time. analyze creates it as the temporary table
-- whatif_requests; whatif_offsets, whatif_fits and whatif_pool read it.
--
-- replica = requests.parquet's replica, else the server record's file (a
-- format that logs no replica name writes one file per server, as
-- explain_records.sql takes it).
-- Every instant is on one host's clock, in integer ns:
--   arr_ns   = the server's arrival_time (the replica's clock);
--   sched_ns = arr_ns + queue, end_ns = arr_ns + server_e2e, with queue
--              and server_e2e as queries/requests measures them (a measured
--              duration wins over instants);
--   g_up_ns  = the gateway's upstream_start_time (the gateway's clock),
--              for the clock offsets only (whatif_offsets.sql).
-- batch = the requests running on the replica when this one was scheduled,
--   itself included: server records of the replica with sched_ns <= its
--   sched_ns < their end_ns, on the replica's clock (a request that ends at
--   the instant another is scheduled has left the batch).
-- tpot_ms = decode_ms / (output_tokens - 1): decode time per token after
--   the first; NULL with fewer than two output tokens or no decode time.
-- A request without an arrival instant, a queue or a server E2E cannot be
-- placed and is left out (whatif counts them per model and says so).
WITH s AS (
    SELECT concat(server_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        coalesce(request_id, '') AS rid,
        any_value(arrival_time) AS arrival_time,
        any_value(coalesce(replica, source_file)) AS host
    FROM server_logged WHERE source_file IS NOT NULL
    GROUP BY server_file(source_file, rid), source_line, coalesce(request_id, '') HAVING count(DISTINCT arrival_time) <= 1
),
g AS (
    SELECT concat(gateway_file(source_file, rid), ':', coalesce(source_line::VARCHAR, '?')) AS src,
        any_value(upstream_start_time) AS upstream_start_time,
        any_value(coalesce(gateway, source_file)) AS host
    FROM gateway WHERE source_file IS NOT NULL
    GROUP BY gateway_file(source_file, rid), source_line HAVING count(*) = 1
),
r AS (
    SELECT r.request_id, r.model, coalesce(r.replica, s.host) AS replica, r.use_case, r.streamed, r.start, r.completed, r.phase,
        r.prompt_tokens, r.output_tokens,
        r.queue_ms, r.prefill_ms, r.decode_ms, r.model_ms,
        r.server_ttft_ms, r.server_e2e_ms, r.server_overhead_ms, r.ttft_server_overhead_ms,
        epoch_ns(s.arrival_time) AS arr_ns,
        epoch_ns(s.arrival_time) + round(r.queue_ms * 1e6)::BIGINT AS sched_ns,
        epoch_ns(s.arrival_time) + round(r.server_e2e_ms * 1e6)::BIGINT AS end_ns,
        CASE WHEN r.server_join = 'id' THEN g.host END AS gateway_host,
        CASE WHEN r.server_join = 'id' THEN epoch_ns(g.upstream_start_time) END AS g_up_ns
    FROM requests AS r
    LEFT JOIN s ON s.src = r.server_source AND s.rid = CASE WHEN r.server_join = 'id' THEN r.request_id ELSE '' END
    LEFT JOIN g ON g.src = r.gateway_source
    WHERE r.has_server AND r.model IS NOT NULL
),
placed AS (
    SELECT * FROM r
    WHERE arr_ns IS NOT NULL AND replica IS NOT NULL AND queue_ms >= 0 AND server_e2e_ms >= queue_ms
),
ev AS (
    SELECT replica, request_id, sched_ns AS t, 1 AS d FROM placed
    UNION ALL
    SELECT replica, request_id, end_ns AS t, -1 AS d FROM placed
),
run AS (
    SELECT request_id, d,
        sum(d) OVER (PARTITION BY replica ORDER BY t, d, request_id
                     ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running
    FROM ev
)
SELECT p.*, run.running AS batch,
    CASE WHEN p.output_tokens >= 2 AND p.decode_ms >= 0
         THEN p.decode_ms / (p.output_tokens - 1) END AS tpot_ms
FROM placed AS p
JOIN run ON run.request_id = p.request_id AND run.d = 1
ORDER BY p.model, p.replica, p.arr_ns, p.request_id
