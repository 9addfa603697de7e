-- requests: the output, one row per request: each tier's kept record of it
-- (client_o, gateway_o, server_o) lined up by position with req_o, its
-- measures, components, phase and anomalies. analyze writes these rows to
-- DIR/requests.parquet.
--
-- reads: client_o, gateway_o, req_o, server_o
-- writes: requests.parquet
WITH
-- Each request's records' columns; same-tier durations in integer
-- nanoseconds.
j AS (
    SELECT
        i.request_id,
        i.c_rid IS NOT NULL AS has_client,
        i.g_rid IS NOT NULL AS has_gateway,
        i.s_rid IS NOT NULL AS has_server,
        coalesce(i.c_records, 0) AS client_records,
        coalesce(i.g_records, 0) AS gateway_records,
        coalesce(i.s_records, 0) AS server_records,
        coalesce(c.start_time::TIMESTAMP_NS, g.start_time::TIMESTAMP_NS,
                 s.arrival_time::TIMESTAMP_NS) AS start,
        coalesce(s.model, c.model) AS model,
        c.use_case,
        c.streamed,
        coalesce(c.status, g.status, s.status) AS status,
        c.status AS c_status,
        g.status AS g_status,
        g.response_flags AS g_flags,
        coalesce(s.prompt_tokens, c.prompt_tokens) AS prompt_tokens,
        coalesce(s.output_tokens, c.output_tokens) AS output_tokens,
        c.client,
        c.region,
        g.gateway,
        g.route,
        s.replica,
        coalesce(s.finish_reason, i.an_finish_reason) AS finish_reason,
        coalesce(c.error, s.error, i.an_error) AS error,
        s.format AS server_format,
        CASE WHEN i.s_rid IS NOT NULL THEN coalesce(s.joined_by, 'id') END AS server_join,
        i.c_how AS c_how,
        i.g_how AS g_how,
        c.format AS client_format,
        g.format AS gateway_format,
        s.match_candidates AS server_match_candidates,
        coalesce(i.n_annotations, 0) AS server_annotations,
        coalesce(c.output_tokens, s.output_tokens) AS received_tokens,
        i.concurrency,
        coalesce(i.cold, false) OR coalesce(i.behind_cold, false) AS is_cold,
        coalesce(i.is_burst, false) OR coalesce(i.behind_burst, false) AS is_burst,
        epoch_ns(c.end_time) - epoch_ns(c.start_time)                   AS c_e2e,
        epoch_ns(c.first_token_time) - epoch_ns(c.start_time)           AS c_ttft,
        epoch_ns(c.end_time) - epoch_ns(c.first_token_time)             AS c_stream,
        c.e2e_ns AS c_e2e_ns, c.ttft_ns AS c_ttft_ns, g.ttft_ns AS g_ttft_ns,
        epoch_ns(g.upstream_first_byte_time) - epoch_ns(g.upstream_start_time) AS g_ttfb,
        epoch_ns(g.end_time) - epoch_ns(g.start_time)                   AS g_e2e,
        epoch_ns(g.upstream_start_time) - epoch_ns(g.start_time)        AS g_pre,
        epoch_ns(g.upstream_end_time) - epoch_ns(g.upstream_start_time) AS g_upstream,
        epoch_ns(g.end_time) - epoch_ns(g.upstream_end_time)            AS g_post,
        epoch_ns(s.end_time) - epoch_ns(s.arrival_time)                 AS s_e2e,
        epoch_ns(s.scheduled_time) - epoch_ns(s.arrival_time)           AS s_queue,
        epoch_ns(s.end_time) - epoch_ns(s.scheduled_time)               AS s_model,
        epoch_ns(s.first_token_time) - epoch_ns(s.arrival_time)         AS s_ttft,
        epoch_ns(s.first_token_time) - epoch_ns(s.scheduled_time)       AS s_ttft_model,
        epoch_ns(s.end_time) - epoch_ns(s.first_token_time)             AS s_decode,
        s.e2e_ns, s.queue_ns, s.ttft_ns, s.prefill_ns, s.decode_ns, s.inference_ns, s.load_ns,
        c.source_file AS c_file, c.source_line AS c_line,
        g.source_file AS g_file, g.source_line AS g_line,
        s.source_file AS s_file, s.source_line AS s_line
    FROM req_o AS i
    POSITIONAL JOIN client_o AS c
    POSITIONAL JOIN gateway_o AS g
    POSITIONAL JOIN server_o AS s
    -- the tables are in step, else this is a defect, never a result
    WHERE CASE WHEN i.ord = c.c_ord AND i.ord = g.g_ord AND i.ord = s.s_ord THEN true
               ELSE error('queries/requests: the tiers'' rows are out of step with the requests') END
),
-- Server measures: the server's own durations first, else its instants;
-- the client's the same way (measured beats derived, see docs/attribution.md).
m AS (
    SELECT *,
        coalesce(c_e2e_ns, c_e2e)                     AS cl_e2e,
        coalesce(c_ttft_ns, c_ttft)                   AS cl_ttft,
        coalesce(c_e2e_ns - c_ttft_ns, c_stream)      AS cl_stream,
        coalesce(e2e_ns, s_e2e)                       AS sv_e2e,
        coalesce(queue_ns, s_queue)                   AS sv_queue,
        coalesce(ttft_ns, s_ttft)                     AS sv_ttft,
        coalesce(prefill_ns, s_ttft_model)            AS sv_prefill,
        coalesce(decode_ns, s_decode)                 AS sv_decode,
        coalesce(prefill_ns + decode_ns, inference_ns) AS sv_work
    FROM j
),
-- A record that logs a load but no queue (Ollama, whose load_duration
-- holds the wait for a runner) has its queue inside the load.
o AS (
    SELECT *,
        sv_e2e - coalesce(sv_queue, CASE WHEN load_ns IS NOT NULL THEN 0 END)
               - coalesce(load_ns, 0) - sv_work       AS sv_overhead,
        sv_ttft - coalesce(sv_queue, CASE WHEN load_ns IS NOT NULL THEN 0 END)
                - coalesce(load_ns, 0) - prefill_ns   AS sv_ttft_overhead,
        -- The server ran on after the tier in front of it had ended (see
        -- aborted in docs/attribution.md).
        coalesce(sv_e2e - coalesce(g_upstream, g_e2e, cl_e2e) > 5000000, false) AS outlived,
        -- The gateway saw its client leave: 499, or Envoy's DC flag.
        coalesce(g_status = 499, false)
            OR coalesce(list_contains(string_split(g_flags, ','), 'DC'), false) AS left_gateway
    FROM m
),
-- Cross-tier components, still in integer nanoseconds.
k AS (
    SELECT *,
        coalesce(c_status = 499, false) OR left_gateway OR outlived AS aborted,
        CASE WHEN NOT outlived AND NOT left_gateway THEN cl_e2e - g_e2e END AS network_ns,
        CASE WHEN NOT outlived
             THEN g_e2e - sv_e2e + coalesce(sv_overhead + coalesce(load_ns, 0), 0) END AS application_ns,
        CASE WHEN sv_overhead IS NOT NULL THEN sv_work
             ELSE coalesce(sv_e2e - sv_queue, s_model, inference_ns) END AS model_ns,
        CASE WHEN sv_ttft IS NOT NULL AND NOT outlived
             THEN g_pre + (g_upstream - sv_e2e)
                  + coalesce(sv_ttft_overhead + coalesce(load_ns, 0), 0) END AS ttft_application_ns,
        CASE WHEN NOT outlived THEN cl_ttft - sv_ttft - (g_pre + (g_upstream - sv_e2e)) END AS ttft_network_ns,
        CASE WHEN sv_ttft IS NOT NULL THEN sv_queue END AS ttft_queue_ns,
        CASE WHEN sv_ttft_overhead IS NOT NULL THEN prefill_ns
             ELSE coalesce(sv_ttft - sv_queue, s_ttft_model) END AS ttft_model_ns,
        CASE WHEN sv_ttft IS NOT NULL THEN sv_prefill END AS ttft_prefill_ns,
        -- A missing tier: what cannot be split is one component (see the
        -- header), never moved into another.
        CASE WHEN NOT has_server THEN g_e2e END AS upstream_ns,
        CASE WHEN NOT has_gateway AND NOT outlived
             THEN cl_e2e - sv_e2e + coalesce(sv_overhead + coalesce(load_ns, 0), 0) END AS network_application_ns,
        CASE WHEN NOT has_gateway AND NOT has_server THEN cl_e2e END AS unsplit_ns,
        CASE WHEN NOT has_gateway AND NOT outlived
             THEN cl_ttft - sv_ttft + coalesce(sv_ttft_overhead + coalesce(load_ns, 0), 0) END AS ttft_network_application_ns,
        CASE WHEN NOT has_server THEN cl_ttft END AS ttft_unsplit_ns
    FROM o
),
-- The rows, in full, in ord order.
r AS (
SELECT
    request_id,
    has_client,
    has_gateway,
    has_server,
    client_records,
    gateway_records,
    server_records,
    start,
    model,
    use_case,
    streamed,
    status,
    coalesce(status BETWEEN 200 AND 299, error IS NULL) AS completed,
    aborted,
    prompt_tokens,
    output_tokens,
    client,
    region,
    gateway,
    route,
    replica,
    finish_reason,
    error,
    server_format,
    server_join,
    server_match_candidates,
    CASE WHEN has_client THEN
        CASE WHEN has_gateway OR has_server THEN c_how ELSE 'none' END END AS client_join,
    CASE WHEN has_gateway THEN
        CASE WHEN NOT has_client AND NOT has_server THEN 'none'
             WHEN g_how <> 'none' THEN g_how
             WHEN has_client THEN c_how
             ELSE 'none' END END AS gateway_join,
    client_format,
    gateway_format,
    server_annotations,
    CASE WHEN is_cold THEN 'cold'
         WHEN is_burst THEN 'burst'
         ELSE 'steady' END AS phase,
    concurrency,
    CASE WHEN concurrency IS NULL THEN NULL
         WHEN concurrency <= 1 THEN '1'
         WHEN concurrency <= 4 THEN '2-4'
         WHEN concurrency <= 8 THEN '5-8'
         WHEN concurrency <= 16 THEN '9-16'
         ELSE '17+' END AS concurrency_bucket,
    cl_e2e / 1e6              AS client_e2e_ms,
    c_e2e / 1e6               AS client_wall_e2e_ms,
    g_e2e / 1e6               AS gateway_e2e_ms,
    sv_e2e / 1e6              AS server_e2e_ms,
    network_ns / 1e6          AS network_ms,
    application_ns / 1e6      AS application_ms,
    sv_queue / 1e6            AS queue_ms,
    model_ns / 1e6            AS model_ms,
    upstream_ns / 1e6         AS upstream_ms,
    network_application_ns / 1e6 AS network_application_ms,
    unsplit_ns / 1e6          AS unsplit_ms,
    sv_prefill / 1e6          AS prefill_ms,
    sv_decode / 1e6           AS decode_ms,
    sv_overhead / 1e6         AS server_overhead_ms,
    load_ns / 1e6             AS load_ms,
    cl_ttft / 1e6             AS client_ttft_ms,
    g_ttft_ns / 1e6           AS gateway_ttft_ms,
    g_ttfb / 1e6              AS gateway_upstream_ttfb_ms,
    sv_ttft / 1e6             AS server_ttft_ms,
    ttft_network_ns / 1e6     AS ttft_network_ms,
    ttft_application_ns / 1e6 AS ttft_application_ms,
    ttft_queue_ns / 1e6       AS ttft_queue_ms,
    ttft_model_ns / 1e6       AS ttft_model_ms,
    ttft_network_application_ns / 1e6 AS ttft_network_application_ms,
    ttft_unsplit_ns / 1e6     AS ttft_unsplit_ms,
    ttft_prefill_ns / 1e6     AS ttft_prefill_ms,
    sv_ttft_overhead / 1e6    AS ttft_server_overhead_ms,
    CASE WHEN aborted AND sv_e2e IS NOT NULL THEN greatest(coalesce(sv_e2e + g_pre - cl_e2e, sv_e2e - coalesce(g_upstream, g_e2e),
                                             sv_e2e - cl_e2e), 0) / 1e6 END AS wasted_ms,
    CASE WHEN streamed IS TRUE AND cl_stream > 0 AND received_tokens > 1
         THEN (received_tokens - 1) / (cl_stream / 1e9) END AS tps_user,
    nullif(concat_ws('; ',
        CASE WHEN c_e2e < 0 THEN 'client end before start' END,
        CASE WHEN c_ttft < 0 THEN 'client first_token before start' END,
        CASE WHEN c_stream < 0 THEN 'client end before first_token' END,
        CASE WHEN least(c_e2e_ns, c_ttft_ns) < 0 THEN 'negative client duration logged' END,
        CASE WHEN g_e2e < 0 THEN 'gateway end before start' END,
        CASE WHEN g_pre < 0 THEN 'gateway upstream_start before start' END,
        CASE WHEN g_upstream < 0 THEN 'gateway upstream_end before upstream_start' END,
        CASE WHEN g_post < 0 THEN 'gateway end before upstream_end' END,
        CASE WHEN g_ttfb < 0 THEN 'gateway upstream first byte before upstream_start' END,
        CASE WHEN g_ttft_ns < 0 THEN 'negative gateway duration logged' END,
        CASE WHEN s_queue < -clock_round_off_ns(server_format) THEN 'server scheduled before arrival' END,
        CASE WHEN s_ttft_model < -clock_round_off_ns(server_format) THEN 'server first_token before scheduled' END,
        CASE WHEN s_decode < -clock_round_off_ns(server_format) THEN 'server end before first_token' END,
        CASE WHEN s_model < -clock_round_off_ns(server_format) AND s_decode IS NULL THEN 'server end before scheduled' END,
        CASE WHEN least(e2e_ns, queue_ns, ttft_ns, prefill_ns, decode_ns, inference_ns, load_ns) < 0
             THEN 'negative server duration logged' END,
        CASE WHEN sv_overhead < -clock_round_off_ns(server_format) THEN 'negative server_overhead_ms' END,
        CASE WHEN sv_ttft_overhead < -clock_round_off_ns(server_format) THEN 'negative ttft_server_overhead_ms' END,
        CASE WHEN network_ns < -1000000 THEN 'negative network_ms' END,
        CASE WHEN application_ns < -1000000 THEN 'negative application_ms' END,
        CASE WHEN ttft_network_ns < -1000000 THEN 'negative ttft_network_ms' END,
        CASE WHEN ttft_application_ns < -1000000 THEN 'negative ttft_application_ms' END,
        CASE WHEN network_application_ns < -1000000 THEN 'negative network_application_ms' END,
        CASE WHEN ttft_network_application_ns < -1000000 THEN 'negative ttft_network_application_ms' END
    ), '') AS anomaly,
    CASE WHEN c_file IS NOT NULL
         THEN concat(c_file, ':', coalesce(c_line::VARCHAR, '?')) END AS client_source,
    CASE WHEN g_file IS NOT NULL
         THEN concat(g_file, ':', coalesce(g_line::VARCHAR, '?')) END AS gateway_source,
    CASE WHEN s_file IS NOT NULL
         THEN concat(s_file, ':', coalesce(s_line::VARCHAR, '?')) END AS server_source
FROM k
)
-- In the order of req_o's ord, (start, request_id), which the positional
-- joins keep: analyze writes it with insertion order preserved.
SELECT * FROM r;
