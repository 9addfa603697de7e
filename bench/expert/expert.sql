-- The anchor of bench/analyze.sh: what an expert writes with DuckDB alone in
-- an afternoon for infertrace's main job, from the raw logs to the answer.
--
-- Reads:  {{client}}, {{gateway}}, {{server}}: globs of each tier's native
--         JSON lines (.gz read by DuckDB itself), as `infertrace simulate`
--         writes them; a line that does not parse is skipped.
-- Writes: {{out}}: one Parquet row per request ID seen by the client, with
--         its slice labels and its additive split; then prints, per model ×
--         use case, P50/P95/P99 of client E2E, TTFT and each component.
--
-- Rules, as an afternoon allows: one record per request ID and tier (the last
-- to end); the tiers joined by request ID only; every component a
-- difference of two times of one host's clock:
--   network      = client E2E − gateway E2E            (client clock − gateway clock)
--   application  = gateway E2E − gateway upstream time (gateway clock)
--   upstream     = gateway upstream time − server E2E  (gateway clock − server clock)
--   queue        = scheduled − arrival                 (server clock)
--   prefill      = first token − scheduled             (server clock)
--   decode       = end − first token                   (server clock)
-- so network + application + upstream + queue + prefill + decode = client E2E;
-- TTFT splits the same way up to the first token. Per-user tokens/s is the
-- output tokens after the first over the client's time after its first token.
-- No retries, response or trace IDs, time matching, phases or intervals.

SET preserve_insertion_order = false;

CREATE TEMP MACRO ts(x) AS coalesce(try_cast(x AS TIMESTAMPTZ),
    make_timestamp(try_cast(try_cast(x AS DOUBLE) * 1e6 AS BIGINT))::TIMESTAMPTZ);
CREATE TEMP MACRO ms(a, b) AS (epoch_us(b) - epoch_us(a)) / 1e3;

CREATE TEMP TABLE c AS
SELECT request_id, arg_max(struct_pack(s := ts(start), f := ts(first_token), e := ts("end"), status, streamed, model,
    use_case, client, region, prompt_tokens, output_tokens), ts("end")) AS r
FROM read_json({{client}}, format = 'newline_delimited', ignore_errors = true,
    columns = {request_id: 'VARCHAR', start: 'VARCHAR', first_token: 'VARCHAR', "end": 'VARCHAR', status: 'INTEGER',
        streamed: 'BOOLEAN', model: 'VARCHAR', use_case: 'VARCHAR', client: 'VARCHAR', region: 'VARCHAR',
        prompt_tokens: 'INTEGER', output_tokens: 'INTEGER'})
WHERE request_id IS NOT NULL
GROUP BY request_id;

CREATE TEMP TABLE g AS
SELECT request_id, arg_max(struct_pack(s := ts(start), e := ts("end"), us := ts(upstream_start), ue := ts(upstream_end),
    status, gateway, upstream), ts("end")) AS r
FROM read_json({{gateway}}, format = 'newline_delimited', ignore_errors = true,
    columns = {request_id: 'VARCHAR', start: 'VARCHAR', "end": 'VARCHAR', upstream_start: 'VARCHAR',
        upstream_end: 'VARCHAR', status: 'INTEGER', upstream: 'VARCHAR', gateway: 'VARCHAR'})
WHERE request_id IS NOT NULL
GROUP BY request_id;

CREATE TEMP TABLE s AS
SELECT request_id, arg_max(struct_pack(a := ts(arrival), q := ts(scheduled), f := ts(first_token), e := ts("end"),
    model, replica, output_tokens, finish_reason, status), ts("end")) AS r
FROM read_json({{server}}, format = 'newline_delimited', ignore_errors = true,
    columns = {request_id: 'VARCHAR', arrival: 'VARCHAR', scheduled: 'VARCHAR', first_token: 'VARCHAR',
        "end": 'VARCHAR', model: 'VARCHAR', replica: 'VARCHAR', output_tokens: 'INTEGER', finish_reason: 'VARCHAR',
        status: 'INTEGER'})
WHERE request_id IS NOT NULL
GROUP BY request_id;

COPY (
    SELECT c.request_id, c.r.model, c.r.use_case, c.r.region, c.r.client, g.r.gateway, s.r.replica, c.r.streamed,
        c.r.status AS client_status, g.r.status AS gateway_status, s.r.status AS server_status, s.r.finish_reason,
        c.r.s AS client_start, c.r.prompt_tokens, c.r.output_tokens,
        ms(c.r.s, c.r.e) AS client_e2e_ms,
        ms(c.r.s, c.r.f) AS client_ttft_ms,
        ms(g.r.s, g.r.e) AS gateway_e2e_ms,
        ms(s.r.a, s.r.e) AS server_e2e_ms,
        ms(c.r.s, c.r.e) - ms(g.r.s, g.r.e) AS network_ms,
        ms(g.r.s, g.r.e) - ms(g.r.us, g.r.ue) AS application_ms,
        ms(g.r.us, g.r.ue) - ms(s.r.a, s.r.e) AS upstream_ms,
        ms(s.r.a, s.r.q) AS queue_ms,
        ms(s.r.q, s.r.f) AS prefill_ms,
        ms(s.r.f, s.r.e) AS decode_ms,
        ms(s.r.q, s.r.e) AS model_ms,
        -- TTFT: the client's wait for its first token, less the server's
        -- wait for it, is the time outside the server until the first token.
        ms(c.r.s, c.r.f) - ms(s.r.a, s.r.f) AS ttft_outside_server_ms,
        CASE WHEN c.r.output_tokens > 1 AND c.r.e > c.r.f
            THEN (c.r.output_tokens - 1) / (ms(c.r.f, c.r.e) / 1e3) END AS user_tokens_per_s
    FROM c LEFT JOIN g USING (request_id) LEFT JOIN s USING (request_id)
) TO {{out}} (FORMAT parquet);

SELECT model, use_case, count(*) AS n,
    quantile_cont(client_e2e_ms, [0.5, 0.95, 0.99]) AS client_e2e,
    quantile_cont(client_ttft_ms, [0.5, 0.95, 0.99]) AS client_ttft,
    quantile_cont(network_ms, [0.5, 0.95, 0.99]) AS network,
    quantile_cont(application_ms, [0.5, 0.95, 0.99]) AS application,
    quantile_cont(upstream_ms, [0.5, 0.95, 0.99]) AS upstream,
    quantile_cont(queue_ms, [0.5, 0.95, 0.99]) AS queue,
    quantile_cont(prefill_ms, [0.5, 0.95, 0.99]) AS prefill,
    quantile_cont(decode_ms, [0.5, 0.95, 0.99]) AS decode,
    quantile_cont(ttft_outside_server_ms, [0.5, 0.95, 0.99]) AS ttft_outside_server,
    quantile_cont(user_tokens_per_s, [0.5, 0.95, 0.99]) AS user_tokens_per_s
FROM read_parquet({{out}})
WHERE client_status < 400
GROUP BY ALL
ORDER BY model, use_case;
