-- requests.sql: one row per request ID seen in any tier, joined from the
-- client, gateway and server views that analyze registers. analyze writes the
-- result to DIR/requests.parquet.
--
-- Duplicates and retries (applied to each tier on its own, before the join):
--   * Exact duplicates, i.e. records whose columns are all equal except
--     source_file/source_line, collapse to one record. Its source is the
--     first occurrence (lowest file name, then lowest line).
--   * When one tier still holds several distinct records for one request ID
--     (a retry that reused the ID), only the latest attempt is kept, on that
--     tier's own clock: latest start_time (client, gateway) or arrival_time
--     (server), ties broken by latest end_time, then by the later source
--     location. client_records, gateway_records and server_records count the
--     distinct records per tier (0 when the tier has none), so retries remain
--     visible.
--
-- Clocks: each tier's times come from that tier's host clock. Every duration
-- is the difference of two times of the SAME tier, taken in integer
-- nanoseconds as epoch_ns(a) - epoch_ns(b) and divided by 1e6 to give
-- milliseconds (DOUBLE). No time of one tier is ever subtracted from a time
-- of another; cross-tier components are differences of same-tier durations,
-- so a constant offset between host clocks cancels out.
--
-- Merged attributes when several tiers carry one:
--   model, prompt_tokens, output_tokens: server first (what actually ran and
--     was counted), then client.
--   status: client first (what the user saw), then gateway, then server.
--   use_case, streamed, client, region: client only. gateway, route: gateway
--     only. replica, finish_reason: server only.
--   start = coalesce(client start_time, gateway start_time, server
--     arrival_time): the first tier on the request path that has a record,
--     on that tier's clock. It only places a request in windows and time
--     series; min() across tiers would mix clocks.
--
-- Latency components, in ms; NULL whenever a needed tier or time is
-- missing, never guessed:
--   client_e2e_ms  = client end - client start
--   gateway_e2e_ms = gateway end - gateway start
--   server_e2e_ms  = server end - server arrival
--   network_ms     = client_e2e - gateway_e2e
--   application_ms = gateway_e2e - server_e2e (gateway work plus the
--                    gateway<->server hop)
--   queue_ms       = server scheduled - server arrival
--   model_ms       = server end - server scheduled
--   network + application + queue + model = client_e2e when all tiers exist.
-- Time to first token, in ms:
--   client_ttft_ms      = client first_token - client start
--   server_ttft_ms      = server first_token - server arrival
--   ttft_queue_ms       = queue_ms
--   ttft_model_ms       = server first_token - server scheduled
--   ttft_application_ms = (gateway upstream_start - gateway start)
--                         + ((gateway upstream_end - gateway upstream_start)
--                            - server_e2e)
--   ttft_network_ms     = client_ttft - server_ttft - ttft_application
--   the four sum to client_ttft when all are present.
-- tps_user = output_tokens / (client end - client first_token) in tokens per
--   second, for streamed requests only; NULL when that interval is <= 0.
-- client_source, gateway_source, server_source: 'file:line' of the kept
--   record on each tier (NULL without a record or a source file), to find
--   the raw log line of a request.
-- anomaly: the reasons (joined with '; ') why a row is suspect: a tier's own
--   times out of order, or a cross-tier component below zero. Anomalous rows
--   are kept.
WITH
client_u AS (
    SELECT * EXCLUDE (source_file, source_line),
           min({'file': source_file, 'line': source_line}) AS src
    FROM client
    GROUP BY ALL
),
client_k AS (
    SELECT *, count(*) OVER (PARTITION BY request_id) AS n_records
    FROM client_u
    QUALIFY row_number() OVER (
        PARTITION BY request_id
        ORDER BY start_time DESC NULLS LAST, end_time DESC NULLS LAST, src DESC) = 1
),
gateway_u AS (
    SELECT * EXCLUDE (source_file, source_line),
           min({'file': source_file, 'line': source_line}) AS src
    FROM gateway
    GROUP BY ALL
),
gateway_k AS (
    SELECT *, count(*) OVER (PARTITION BY request_id) AS n_records
    FROM gateway_u
    QUALIFY row_number() OVER (
        PARTITION BY request_id
        ORDER BY start_time DESC NULLS LAST, end_time DESC NULLS LAST, src DESC) = 1
),
server_u AS (
    SELECT * EXCLUDE (source_file, source_line),
           min({'file': source_file, 'line': source_line}) AS src
    FROM server
    GROUP BY ALL
),
server_k AS (
    SELECT *, count(*) OVER (PARTITION BY request_id) AS n_records
    FROM server_u
    QUALIFY row_number() OVER (
        PARTITION BY request_id
        ORDER BY arrival_time DESC NULLS LAST, end_time DESC NULLS LAST, src DESC) = 1
),
ids AS (
    SELECT request_id FROM client_k
    UNION
    SELECT request_id FROM gateway_k
    UNION
    SELECT request_id FROM server_k
),
-- Same-tier durations in integer nanoseconds.
j AS (
    SELECT
        i.request_id,
        c.request_id IS NOT NULL AS has_client,
        g.request_id IS NOT NULL AS has_gateway,
        s.request_id IS NOT NULL AS has_server,
        coalesce(c.n_records, 0) AS client_records,
        coalesce(g.n_records, 0) AS gateway_records,
        coalesce(s.n_records, 0) AS server_records,
        coalesce(c.start_time::TIMESTAMP_NS, g.start_time::TIMESTAMP_NS,
                 s.arrival_time::TIMESTAMP_NS) AS start,
        coalesce(s.model, c.model) AS model,
        c.use_case,
        c.streamed,
        coalesce(c.status, g.status, s.status) AS status,
        coalesce(s.prompt_tokens, c.prompt_tokens) AS prompt_tokens,
        coalesce(s.output_tokens, c.output_tokens) AS output_tokens,
        c.client,
        c.region,
        g.gateway,
        g.route,
        s.replica,
        s.finish_reason,
        epoch_ns(c.end_time) - epoch_ns(c.start_time)                   AS c_e2e,
        epoch_ns(c.first_token_time) - epoch_ns(c.start_time)           AS c_ttft,
        epoch_ns(c.end_time) - epoch_ns(c.first_token_time)             AS c_stream,
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
        c.src AS c_src,
        g.src AS g_src,
        s.src AS s_src
    FROM ids AS i
    LEFT JOIN client_k AS c ON c.request_id = i.request_id
    LEFT JOIN gateway_k AS g ON g.request_id = i.request_id
    LEFT JOIN server_k AS s ON s.request_id = i.request_id
),
-- Cross-tier components, still in integer nanoseconds.
k AS (
    SELECT *,
        c_e2e - g_e2e                  AS network_ns,
        g_e2e - s_e2e                  AS application_ns,
        g_pre + (g_upstream - s_e2e)   AS ttft_application_ns,
        c_ttft - s_ttft - (g_pre + (g_upstream - s_e2e)) AS ttft_network_ns
    FROM j
)
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
    prompt_tokens,
    output_tokens,
    client,
    region,
    gateway,
    route,
    replica,
    finish_reason,
    c_e2e / 1e6               AS client_e2e_ms,
    g_e2e / 1e6               AS gateway_e2e_ms,
    s_e2e / 1e6               AS server_e2e_ms,
    network_ns / 1e6          AS network_ms,
    application_ns / 1e6      AS application_ms,
    s_queue / 1e6             AS queue_ms,
    s_model / 1e6             AS model_ms,
    c_ttft / 1e6              AS client_ttft_ms,
    s_ttft / 1e6              AS server_ttft_ms,
    ttft_network_ns / 1e6     AS ttft_network_ms,
    ttft_application_ns / 1e6 AS ttft_application_ms,
    s_queue / 1e6             AS ttft_queue_ms,
    s_ttft_model / 1e6        AS ttft_model_ms,
    CASE WHEN streamed IS TRUE AND c_stream > 0
         THEN output_tokens / (c_stream / 1e9) END AS tps_user,
    nullif(concat_ws('; ',
        CASE WHEN c_e2e < 0 THEN 'client end before start' END,
        CASE WHEN c_ttft < 0 THEN 'client first_token before start' END,
        CASE WHEN c_stream < 0 THEN 'client end before first_token' END,
        CASE WHEN g_e2e < 0 THEN 'gateway end before start' END,
        CASE WHEN g_pre < 0 THEN 'gateway upstream_start before start' END,
        CASE WHEN g_upstream < 0 THEN 'gateway upstream_end before upstream_start' END,
        CASE WHEN g_post < 0 THEN 'gateway end before upstream_end' END,
        CASE WHEN s_queue < 0 THEN 'server scheduled before arrival' END,
        CASE WHEN s_ttft_model < 0 THEN 'server first_token before scheduled' END,
        CASE WHEN s_decode < 0 THEN 'server end before first_token' END,
        CASE WHEN s_model < 0 AND s_decode IS NULL THEN 'server end before scheduled' END,
        CASE WHEN network_ns < 0 THEN 'negative network_ms' END,
        CASE WHEN application_ns < 0 THEN 'negative application_ms' END,
        CASE WHEN ttft_network_ns < 0 THEN 'negative ttft_network_ms' END,
        CASE WHEN ttft_application_ns < 0 THEN 'negative ttft_application_ms' END
    ), '') AS anomaly,
    CASE WHEN c_src.file IS NOT NULL
         THEN concat(c_src.file, ':', coalesce(c_src.line::VARCHAR, '?')) END AS client_source,
    CASE WHEN g_src.file IS NOT NULL
         THEN concat(g_src.file, ':', coalesce(g_src.line::VARCHAR, '?')) END AS gateway_source,
    CASE WHEN s_src.file IS NOT NULL
         THEN concat(s_src.file, ':', coalesce(s_src.line::VARCHAR, '?')) END AS server_source
FROM k
ORDER BY start NULLS LAST, request_id
