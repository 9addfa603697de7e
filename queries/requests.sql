-- requests.sql: one row per request, joined from the client, gateway and
-- server views that analyze registers, with the macros of macros.sql
-- (pct_bucket, pct_interp). analyze writes the result to
-- DIR/requests.parquet, in order of start (NULLS LAST), then request_id.
--
-- The rules (joins, duplicates and retries, clocks, merged attributes, server
-- records, measures, components, missing tiers, TTFT, tokens/s, phases,
-- aborts, anomalies) are stated once, in docs/attribution.md, "The rules in
-- full"; this query implements them.
--
-- Cost (how the rules above are computed; they do not change them): each
-- tier is read once in full, into a narrow table (rid, the view's row id;
-- h, a hash of the row's columns but its source; the source as a file
-- number and a line; the few columns the keys, joins and phases read).
-- Exact duplicates are found by h (only the rows whose h repeats are
-- compared in full); the '#n' numbering reads in full only the rows whose
-- source is shared (and ranks by request ID alone where those differ), and
-- the retry choice ranks only the records of keys a tier holds more than
-- once (found by a hash of the key first), and a tier's kept records are
-- no table of their own: the records of the keys held once, read where
-- needed, and the few winners of the others. Trace matching numbers only
-- the traces a record without an ID needs. The tiers' kept records are
-- joined by request key, one tier at a time, into one narrow row per
-- request (req) that carries each tier's row id; every later step (rates,
-- bursts, warm-up, queue busy periods, concurrency) reads that table, or
-- for the server's phases the kept server records themselves, and keys
-- its result by rq, an integer per request (a server record's rid is the
-- rq of its request); each window is
-- partitioned by host or replica, and the local rate reads the frame's
-- ends 15 rows back and ahead (lag/lead); a host's usual rate sums time in
-- rate bins before it ranks any rate. The output order (start, request_id)
-- is taken once on the narrow rows (req_o's ord); each tier's kept records'
-- other columns are then picked up by row id into a table of their own in
-- that order, and the four tables are lined up by position (POSITIONAL
-- JOIN): a whole output row is never hashed nor sorted, only one tier's
-- columns at a time, by an integer. analyze runs each
-- MATERIALIZED CTE as a statement of its own into a temporary table (as
-- one statement the query gives the same rows), so that each step holds
-- only its own hash tables and sorts, and can spill to disk under a memory
-- limit.
WITH
-- Each tier's rows as read ('' IDs read as none); rid is the view's row id.
client_r AS NOT MATERIALIZED (
    SELECT * REPLACE (nullif(request_id, '') AS request_id,
                      nullif(response_id, '') AS response_id,
                      nullif(trace_id, '') AS trace_id)
    FROM client
),
{{template "tier_dedup" (dict "T" "client" "HCols" "r.request_id, r.response_id, r.trace_id, r.start_time, r.end_time, r.client")}}
{{template "tier_refs" (dict "T" "client")}}
-- A gateway record with no request ID, no trace ID and no start (NGINX's
-- combined format) is no request (see the header).
gateway_r AS NOT MATERIALIZED (
    SELECT * REPLACE (nullif(request_id, '') AS request_id,
                      nullif(trace_id, '') AS trace_id)
    FROM gateway
    WHERE nullif(request_id, '') IS NOT NULL OR nullif(trace_id, '') IS NOT NULL OR start_time IS NOT NULL
),
{{template "tier_dedup" (dict "T" "gateway" "HCols" "r.request_id, r.trace_id, r.start_time, r.end_time, r.gateway, r.joined_by = 'time' AS by_time")}}
{{template "tier_refs" (dict "T" "gateway")}}
server_r AS NOT MATERIALIZED (
    SELECT * REPLACE (nullif(request_id, '') AS request_id,
                      nullif(trace_id, '') AS trace_id)
    FROM server
    WHERE nullif(request_id, '') IS NOT NULL AND format IS DISTINCT FROM 'vllm-log'
),
{{template "tier_dedup" (dict "T" "server" "HCols" `r.request_id, r.trace_id, r.arrival_time, r.scheduled_time, r.first_token_time, r.end_time,
           r.replica, r.model, r.output_tokens, r.queue_ns, r.prefill_ns, r.decode_ns, r.inference_ns, r.load_ns`)}}
{{template "tier_retry" (dict "T" "server" "In" "server_u" "Start" "arrival_time")}}
-- server_k is not written itself: each step that reads it reads the
-- columns of server_h it needs.
server_k AS NOT MATERIALIZED (
    SELECT *, 1::BIGINT AS n_records
    FROM server_u ANTI JOIN server_multi USING (request_id)
    UNION ALL
    SELECT * FROM server_win
),
-- Trace matching (see the header): within each trace, the records of each
-- tier that did not join the other tier by ID, numbered by start on that
-- tier's own clock. A gateway record's trace match decides its key only
-- when it has no request ID, so only the traces that hold such a record
-- are numbered (whole traces: the numbers are those of all the trace's
-- records).
gateway_trn AS MATERIALIZED (
    SELECT DISTINCT trace_id FROM gateway_n WHERE request_id IS NULL AND trace_id IS NOT NULL
),
-- Those traces' records on each tier: few, often none, so that the steps
-- below read the kept records of the other tier only for the IDs these
-- hold (and not at all when they hold none).
gateway_trc AS MATERIALIZED (
    SELECT rid, request_id, trace_id, start_time, fid, line, n
    FROM gateway_n SEMI JOIN gateway_trn USING (trace_id)
),
server_trc AS MATERIALIZED (
    SELECT request_id, trace_id, arrival_time, fid, line
    FROM server_k SEMI JOIN gateway_trn USING (trace_id)
),
gateway_tr AS (
    SELECT rid, trace_id,
           row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                             {'file': fid, 'line': line, 'n': n}) AS rk,
           count(*) OVER (PARTITION BY trace_id) AS n_tr
    FROM gateway_trc AS g
    ANTI JOIN (SELECT request_id FROM server_k WHERE request_id IN (SELECT request_id FROM gateway_trc)) AS s
         ON s.request_id = g.request_id
),
server_tr AS (
    SELECT request_id, trace_id,
           row_number() OVER (PARTITION BY trace_id ORDER BY arrival_time NULLS LAST, {'file': fid, 'line': line}) AS rk,
           count(*) OVER (PARTITION BY trace_id) AS n_tr
    FROM server_trc AS s
    ANTI JOIN (SELECT request_id FROM gateway_n WHERE request_id IN (SELECT request_id FROM server_trc)) AS g
         ON g.request_id = s.request_id
),
gateway_server_tr AS (
    SELECT g.rid, s.request_id AS key,
           CASE WHEN g.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM gateway_tr AS g
    JOIN server_tr AS s ON s.trace_id = g.trace_id AND s.n_tr = g.n_tr AND s.rk = g.rk
),
-- Each gateway record with its request key (request_id) and how it was
-- found (how).
gateway_j AS MATERIALIZED (
    SELECT g.* REPLACE (
               CASE WHEN g.request_id IS NOT NULL THEN g.request_id
                    WHEN gs.key IS NOT NULL THEN gs.key
                    WHEN gt.n_tr = 1 THEN 'trace:' || g.trace_id
                    WHEN gt.n_tr > 1 THEN 'trace:' || g.trace_id || '#' || gt.rk
                    ELSE concat('unjoined:', coalesce(f.file, '?'), ':', coalesce(g.line::VARCHAR, '?'),
                                '#' || g.n) END AS request_id),
           CASE WHEN g.by_time THEN 'time'
                WHEN g.request_id IS NOT NULL THEN 'id'
                ELSE coalesce(gs.how, 'none') END AS how
    FROM gateway_n AS g
    LEFT JOIN gateway_server_tr AS gs ON gs.rid = g.rid
    LEFT JOIN gateway_tr AS gt ON gt.rid = g.rid
    LEFT JOIN gateway_files AS f ON f.fid = g.fid
),
{{template "tier_retry" (dict "T" "gateway" "In" "gateway_j" "Start" "start_time")}}
gateway_k AS NOT MATERIALIZED (
    SELECT *, 1::BIGINT AS n_records
    FROM gateway_j ANTI JOIN gateway_multi USING (request_id)
    UNION ALL
    SELECT * FROM gateway_win
),
-- A client's response_id mapped back to the request ID vLLM built it from
-- (the one definition of that rule in SQL; see the header).
client_m AS (
    SELECT rid, request_id,
           CASE WHEN starts_with(response_id, 'chatcmpl-') AND response_id <> 'chatcmpl-'
                    THEN substr(response_id, 10)
                WHEN regexp_matches(response_id, '(?s)^cmpl-.+-[0-9]+$')
                    THEN regexp_extract(response_id, '(?s)^cmpl-(.+)-[0-9]+$', 1)
                WHEN starts_with(response_id, 'cmpl-') AND response_id <> 'cmpl-'
                    THEN substr(response_id, 6)
                ELSE response_id END AS response_request_id
    FROM client_n
),
-- The keys a client record can join: kept gateway and server records.
join_keys AS (
    SELECT request_id AS key FROM gateway_k
    UNION ALL
    SELECT request_id FROM server_k
),
-- Client joins by request ID, else by response ID: a client record's
-- request ID when a gateway or server record has that key (pri 1), else
-- its response ID's request ID when one has that (pri 2).
-- Each step reads join_keys once (read more often in one statement, DuckDB
-- would hold the union in memory). client_miss holds the records whose
-- request ID is no key (few where the tiers join), client_resp those of
-- them whose response ID's request ID is one: every other record is a
-- pri 1 hit, so client_id joins only these small tables to the records.
client_miss AS MATERIALIZED (
    SELECT m.rid, m.response_request_id
    FROM client_m AS m ANTI JOIN join_keys AS k ON k.key = m.request_id
),
client_resp AS MATERIALIZED (
    SELECT x.rid, x.response_request_id AS id_key
    FROM client_miss AS x SEMI JOIN join_keys AS r ON r.key = x.response_request_id
),
client_id AS (
    SELECT c.*,
           CASE WHEN x.rid IS NULL THEN c.request_id ELSE r.id_key END AS id_key,
           CASE WHEN x.rid IS NULL THEN 'id' WHEN r.rid IS NOT NULL THEN 'response_id' END AS id_how
    FROM client_n AS c
    LEFT JOIN client_miss AS x ON x.rid = c.rid
    LEFT JOIN client_resp AS r ON r.rid = c.rid
),
-- Trace matching of the client records that joined nothing by ID: they are
-- numbered within their trace, and so are the kept gateway records of
-- those traces, and the kept server records of those traces that the
-- gateway did not log (whole traces: the numbers are those of all the
-- trace's records on that tier), each but the records a client joined by
-- ID (client_hit: only the keys of those gateway and server records are
-- looked for, once).
client_tr AS MATERIALIZED (
    SELECT rid, trace_id,
           row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                             {'file': fid, 'line': line, 'n': n}) AS rk,
           count(*) OVER (PARTITION BY trace_id) AS n_tr
    FROM client_id
    WHERE trace_id IS NOT NULL AND id_key IS NULL
),
client_trg AS MATERIALIZED (
    SELECT request_id, trace_id, start_time, fid, line, n
    FROM gateway_k
    WHERE trace_id IN (SELECT trace_id FROM client_tr)
),
client_trs AS MATERIALIZED (
    SELECT s.request_id, s.trace_id, s.arrival_time, s.fid, s.line
    FROM (SELECT * FROM server_k
          WHERE trace_id IN (SELECT trace_id FROM client_tr)
            AND trace_id NOT IN (SELECT trace_id FROM client_trg)) AS s
    ANTI JOIN gateway_k AS g ON g.request_id = s.request_id
),
client_hit AS MATERIALIZED (
    SELECT DISTINCT id_key FROM client_id
    WHERE id_key IN (SELECT request_id FROM client_trg UNION ALL SELECT request_id FROM client_trs)
),
client_gateway_tr AS (
    SELECT c.rid, g.request_id AS key,
           CASE WHEN c.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM client_tr AS c
    JOIN (SELECT request_id, trace_id,
                 row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                                   {'file': fid, 'line': line, 'n': n}) AS rk,
                 count(*) OVER (PARTITION BY trace_id) AS n_tr
          FROM client_trg AS g
          ANTI JOIN client_hit AS h ON h.id_key = g.request_id) AS g
      ON g.trace_id = c.trace_id AND g.n_tr = c.n_tr AND g.rk = c.rk
),
-- (a trace the gateway logged is matched to the gateway only: client_trs
-- holds the other traces)
client_server_tr AS (
    SELECT c.rid, s.request_id AS key,
           CASE WHEN c.n_tr = 1 THEN 'trace_id' ELSE 'trace_order' END AS how
    FROM client_tr AS c
    JOIN (SELECT request_id, trace_id,
                 row_number() OVER (PARTITION BY trace_id ORDER BY arrival_time NULLS LAST, {'file': fid, 'line': line}) AS rk,
                 count(*) OVER (PARTITION BY trace_id) AS n_tr
          FROM client_trs AS s
          ANTI JOIN client_hit AS h ON h.id_key = s.request_id) AS s
      ON s.trace_id = c.trace_id AND s.n_tr = c.n_tr AND s.rk = c.rk
),
-- Each client record, with only the columns later steps read (the rest
-- is picked up by rid in client_o), its request key (request_id) and how
-- it was found (how).
client_j AS MATERIALIZED (
    SELECT c.rid, c.fid, c.line, c.start_time, c.end_time, c.client,
           coalesce(c.id_key, cg.key, cs.key, c.request_id,
                    concat('unjoined:', coalesce(f.file, '?'), ':', coalesce(c.line::VARCHAR, '?'),
                           '#' || c.n)) AS request_id,
           coalesce(c.id_how, cg.how, cs.how, 'none') AS how
    FROM client_id AS c
    LEFT JOIN client_gateway_tr AS cg ON cg.rid = c.rid
    LEFT JOIN client_server_tr AS cs ON cs.rid = c.rid
    LEFT JOIN client_files AS f ON f.fid = c.fid
),
{{template "tier_retry" (dict "T" "client" "In" "client_j" "Start" "start_time")}}
-- The kept client record of each key, with the columns req_cg reads.
client_k AS NOT MATERIALIZED (
    SELECT request_id, rid, how, start_time, client, 1::BIGINT AS n_records
    FROM client_j ANTI JOIN client_multi USING (request_id)
    UNION ALL
    SELECT request_id, rid, how, start_time, client, n_records FROM client_win
),
-- One narrow row per request: its records' row ids on each tier and the
-- columns the phases read, the tiers joined by request key one at a time
-- (one hash table per step); rq numbers the requests (the server record's
-- rid, else the gateway's, else the client's, each tier in a range of its
-- own: rids are below 2^60).
req_cg AS MATERIALIZED (
    SELECT coalesce(c.request_id, g.request_id) AS request_id,
           c.rid AS c_rid, c.n_records AS c_records, c.how AS c_how, c.start_time AS c_start, c.client AS c_host,
           g.rid AS g_rid, g.n_records AS g_records, g.how AS g_how, g.start_time AS g_start, g.gateway AS g_host
    FROM client_k AS c
    FULL JOIN gateway_k AS g ON g.request_id = c.request_id
),
req AS MATERIALIZED (
    SELECT CASE WHEN s.rid IS NOT NULL THEN s.rid
                WHEN i.g_rid IS NOT NULL THEN i.g_rid + (1::BIGINT << 60)
                ELSE i.c_rid + (2::BIGINT << 60) END AS rq,
           coalesce(i.request_id, s.request_id) AS request_id,
           i.* EXCLUDE (request_id),
           s.rid AS s_rid, s.n_records AS s_records, s.arrival_time
    FROM req_cg AS i
    FULL JOIN server_k AS s ON s.request_id = i.request_id
),
-- vLLM text-log annotations: per request ID, how many lines, and the
-- finish_reason and error of the latest line (by source) that has one.
annot AS (
    SELECT request_id,
           count(*) AS n_annotations,
           arg_max(finish_reason, {'file': source_file, 'line': source_line})
               FILTER (WHERE finish_reason IS NOT NULL) AS finish_reason,
           arg_max(error, {'file': source_file, 'line': source_line})
               FILTER (WHERE error IS NOT NULL) AS error
    FROM server
    WHERE request_id IS NOT NULL AND format = 'vllm-log'
    GROUP BY request_id
),
-- concurrency: +1 at each arrival, -1 at each end; the running sum over
-- all events at or before an arrival (peers included) is the number in
-- flight then.
-- (A server record's rq is its rid, see req; the phases read the kept
-- server records themselves, not req.)
conc_ev AS (
    SELECT rid AS rq, replica,
           unnest([arrival_time::TIMESTAMP_NS, end_time::TIMESTAMP_NS]) AS t,
           unnest([1, -1]) AS d, unnest([true, false]) AS is_arrival
    FROM server_k
    WHERE replica IS NOT NULL AND end_time >= arrival_time
),
conc AS MATERIALIZED (
    SELECT rq, in_flight AS concurrency
    FROM (
        SELECT rq, is_arrival,
               sum(d) OVER (PARTITION BY replica ORDER BY t
                            RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS in_flight
        FROM conc_ev
    )
    WHERE is_arrival
),
-- Phases (see the header): each replica's warm-up from its own requests,
-- bursts from each host's arrival rate, and the queue a request waits in
-- behind either.
-- Every arrival of every tier, on its own host's clock.
arrivals AS (
    SELECT rq, request_id, 1 AS pref, 'gateway' AS tier, g_host AS host, g_start::TIMESTAMP_NS AS t
    FROM req WHERE g_start IS NOT NULL
    UNION ALL
    SELECT rq, request_id, 2, 'client', c_host, c_start::TIMESTAMP_NS
    FROM req WHERE c_start IS NOT NULL
    UNION ALL
    SELECT rid, request_id, 3, 'server', replica, arrival_time::TIMESTAMP_NS
    FROM server_k WHERE arrival_time IS NOT NULL
),
-- Sessions (see the header): the minutes (epoch_ns // 60e9) in which some
-- tier logged an arrival, numbered sid from 1 and a new session after a
-- run of more than 10 minutes without one.
sess AS MATERIALIZED (
    SELECT m, sum(brk) OVER (ORDER BY m ROWS UNBOUNDED PRECEDING) AS sid
    FROM (SELECT m, CASE WHEN m - lag(m) OVER (ORDER BY m) <= 11 THEN 0 ELSE 1 END AS brk
          FROM (SELECT DISTINCT epoch_ns(t) // 60000000000 AS m FROM arrivals))
),
-- A replica is its label, else (formats that name none: Ollama, TGI) the
-- log file.
srv_p0 AS (
    SELECT rid AS rq, request_id, coalesce(replica, 'file ' || fid) AS replica, model,
           epoch_ns(arrival_time) AS a_ns,
           coalesce(epoch_ns(scheduled_time) - epoch_ns(arrival_time), queue_ns) AS q_ns,
           load_ns AS ld_ns,
           CASE WHEN output_tokens > 1
                THEN coalesce(epoch_ns(end_time) - epoch_ns(first_token_time), decode_ns) / (output_tokens - 1)
           END AS tpot_ns,
           coalesce(prefill_ns, epoch_ns(first_token_time) - epoch_ns(scheduled_time)) AS pf_ns,
           coalesce(epoch_ns(end_time) - epoch_ns(scheduled_time), prefill_ns + decode_ns, inference_ns) AS work_ns
    FROM server_k
    WHERE arrival_time IS NOT NULL
),
-- Each server record with its session and its replica's lifetime: rl
-- names the replica and the lifetime (a new one after more than 10
-- minutes without an arrival on the replica, on its clock), ms the model
-- and the session, msc the model, the session and the concurrency bucket
-- (as concurrency_bucket); the warm-up's yardsticks are taken per rl, ms
-- and msc.
srv_p AS MATERIALIZED (
    SELECT * EXCLUDE (brk, concurrency),
           replica || chr(31) || sum(brk) OVER (PARTITION BY replica ORDER BY a_ns, request_id
                                                ROWS UNBOUNDED PRECEDING)::VARCHAR AS rl,
           model || chr(31) || sid::VARCHAR AS ms,
           model || chr(31) || sid::VARCHAR || chr(31)
               || CASE WHEN concurrency <= 1 THEN '1' WHEN concurrency <= 4 THEN '2-4' WHEN concurrency <= 8 THEN '5-8'
                       WHEN concurrency <= 16 THEN '9-16' ELSE '17+' END AS msc
    FROM (SELECT p.*, s.sid, c.concurrency,
                 CASE WHEN p.a_ns - lag(p.a_ns) OVER (PARTITION BY p.replica ORDER BY p.a_ns, p.request_id)
                           <= 600000000000 THEN 0 ELSE 1 END AS brk
          FROM srv_p0 AS p JOIN sess AS s ON s.m = p.a_ns // 60000000000
          LEFT JOIN conc AS c ON c.rq = p.rq)
),
-- A replica's usual: the lower of its own quantile and its model's over
-- all replicas (a replica whose log is all warm-up has no usual of its own).
-- The quantiles are quantile_cont's, computed as pct_ci.sql does, because
-- quantile_cont holds every sample of a group in memory that does not spill
-- (four metrics of every server record, per replica and per model: gigabytes
-- beyond the memory limit at 30M requests): each group's samples counted per
-- bucket (pct_bucket, which never decreases as the value grows), the bucket
-- of each rank needed found from the running counts, and only the samples of
-- those buckets sorted; pct_interp interpolates as quantile_cont does.
-- srv_qv: every sample, once; kind 0: a replica's samples, 1: a model's
-- (over all its replicas), the buckets counted per replica and model first.
srv_qv AS (
    SELECT rl, ms, msc, metric, v
    FROM (SELECT rl, ms, msc, tpot_ns::DOUBLE AS tpot, pf_ns::DOUBLE AS pf, work_ns::DOUBLE AS work,
                 ld_ns::DOUBLE AS ld
          FROM srv_p)
    UNPIVOT (v FOR metric IN (tpot, pf, work, ld))
),
srv_qb0 AS (
    SELECT rl, ms, msc, metric, pct_bucket(v) AS b, count(*) AS n, min(v) AS lo, max(v) AS hi
    FROM srv_qv GROUP BY ALL
),
srv_qb AS MATERIALIZED (
    SELECT kind, grp, metric, b, n, lo, hi,
           (sum(n) OVER (PARTITION BY kind, grp, metric ORDER BY b ROWS UNBOUNDED PRECEDING) - n)::BIGINT AS below,
           (sum(n) OVER (PARTITION BY kind, grp, metric))::BIGINT AS total
    FROM (SELECT CASE WHEN grouping(rl) = 0 THEN 0 WHEN grouping(ms) = 0 THEN 1 ELSE 2 END AS kind,
                 CASE WHEN grouping(rl) = 0 THEN rl WHEN grouping(ms) = 0 THEN ms ELSE msc END AS grp,
                 metric, b, sum(n)::BIGINT AS n, min(lo) AS lo, max(hi) AS hi
          FROM srv_qb0
          GROUP BY GROUPING SETS ((rl, metric, b), (ms, metric, b), (msc, metric, b)))
    WHERE grp IS NOT NULL AND (kind < 2 OR metric = 'tpot')
),
-- The ranks each quantile needs (floor(pos) + 1 and ceil(pos) + 1, pos =
-- (n - 1) q), each in its bucket, with its rank there (local).
srv_qn AS MATERIALIZED (
    SELECT r.kind, r.grp, r.metric, r.n, r.q, r.r, b.b, r.r - b.below AS local, b.lo, b.hi
    FROM (SELECT t.kind, t.grp, t.metric, t.n, q.q,
                 unnest([floor((t.n - 1) * q.q) + 1, ceil((t.n - 1) * q.q) + 1])::BIGINT AS r
          FROM (SELECT kind, grp, metric, any_value(total) AS n FROM srv_qb GROUP BY ALL) AS t
          JOIN (VALUES (0, 'tpot', 0.25::DOUBLE), (1, 'tpot', 0.25::DOUBLE), (2, 'tpot', 0.5::DOUBLE),
                       (0, 'pf', 0.9::DOUBLE), (1, 'pf', 0.9::DOUBLE), (0, 'work', 0.5::DOUBLE),
                       (1, 'work', 0.5::DOUBLE), (0, 'ld', 0.5::DOUBLE), (1, 'ld', 0.5::DOUBLE))
               AS q(kind, metric, q) USING (kind, metric)) AS r
    JOIN srv_qb AS b ON b.kind = r.kind AND b.grp = r.grp AND b.metric = r.metric
                    AND r.r > b.below AND r.r <= b.below + b.n
),
-- The samples of the buckets to sort (those not all one value), ranked.
srv_qs AS MATERIALIZED (
    SELECT s.kind, s.grp, s.metric, s.b, x.v,
           row_number() OVER (PARTITION BY s.kind, s.grp, s.metric, s.b ORDER BY x.v) AS local
    FROM (SELECT *, pct_bucket(v) AS b FROM srv_qv) AS x
    JOIN (SELECT DISTINCT kind, grp, metric, b FROM srv_qn WHERE lo < hi) AS s
         ON s.metric = x.metric AND s.b = x.b
            AND s.grp = CASE s.kind WHEN 0 THEN x.rl WHEN 1 THEN x.ms ELSE x.msc END
),
srv_q AS (
    SELECT kind, grp,
           any_value(v) FILTER (WHERE metric = 'tpot') AS tpot,
           any_value(v) FILTER (WHERE metric = 'pf') AS pf,
           any_value(v) FILTER (WHERE metric = 'work') AS work,
           any_value(v) FILTER (WHERE metric = 'ld') AS ld
    FROM (SELECT kind, grp, metric, pct_interp(n, q, r, v) AS v
          FROM (SELECT kind, grp, metric, n, q, r, lo AS v FROM srv_qn WHERE lo = hi
                UNION ALL
                SELECT n.kind, n.grp, n.metric, n.n, n.q, n.r, s.v
                FROM srv_qn AS n
                JOIN srv_qs AS s ON s.kind = n.kind AND s.grp = n.grp AND s.metric = n.metric
                                AND s.b = n.b AND s.local = n.local
                WHERE n.lo < n.hi)
          GROUP BY kind, grp, metric, n, q)
    GROUP BY kind, grp
),
-- Each replica lifetime's server records per model and session, counted
-- (and those that log a queue).
srv_rep AS MATERIALIZED (
    SELECT rl, ms, count(*) AS n, count(q_ns) AS n_queue FROM srv_p GROUP BY rl, ms
),
srv_usual AS MATERIALIZED (
    SELECT c.rl, c.n,
           nullif(least(r.tpot, m.tpot), 0) AS tpot_p25,
           nullif(least(r.pf, m.pf), 0) AS pf_p90,
           -- the queue's yardstick, for replicas whose requests log a queue
           CASE WHEN c.n_queue > 0 THEN nullif(least(r.work, m.work), 0) END AS work_p50,
           nullif(least(r.ld, m.ld), 0) AS ld_p50
    FROM (SELECT rl, sum(n)::BIGINT AS n, sum(n_queue)::BIGINT AS n_queue FROM srv_rep GROUP BY rl) AS c
    LEFT JOIN (SELECT * FROM srv_q WHERE kind = 0) AS r ON r.grp = c.rl
    -- the model's, of a model the replica served, in that session
    LEFT JOIN (SELECT rm.rl, any_value(q.tpot) AS tpot, any_value(q.pf) AS pf,
                      any_value(q.work) AS work, any_value(q.ld) AS ld
               FROM (SELECT DISTINCT rl, ms FROM srv_rep WHERE ms IS NOT NULL) AS rm
               JOIN srv_q AS q ON q.kind = 1 AND q.grp = rm.ms
               GROUP BY rm.rl) AS m ON m.rl = c.rl
),
srv_slow AS (
    SELECT p.rq, p.request_id, p.rl, p.a_ns,
           (p.tpot_ns IS NOT NULL OR u.tpot_p25 IS NULL) AND (p.pf_ns IS NOT NULL OR u.pf_p90 IS NULL)
               AND (p.q_ns IS NOT NULL OR u.work_p50 IS NULL)
               AND (p.ld_ns IS NOT NULL OR u.ld_p50 IS NULL)
               AND coalesce(p.tpot_ns, p.pf_ns, p.q_ns, p.ld_ns) IS NOT NULL AS judged,
           coalesce(p.tpot_ns >= 2.5 * u.tpot_p25, false)
               OR coalesce(p.tpot_ns >= 1.5 * c.tpot_p50, false)
               OR coalesce(p.pf_ns >= 2.5 * u.pf_p90, false)
               OR coalesce(p.q_ns >= 2.5 * u.work_p50, false)
               OR coalesce(p.ld_ns >= 2.5 * u.ld_p50 AND p.ld_ns >= 100000000, false) AS slow
    FROM srv_p AS p JOIN srv_usual AS u USING (rl)
    LEFT JOIN (SELECT grp AS msc, tpot AS tpot_p50 FROM srv_q WHERE kind = 2) AS c USING (msc)
    WHERE u.n >= 20
),
warmup AS MATERIALIZED (
    SELECT rl,
           arg_min(slow, {'a': a_ns, 'id': request_id}) FILTER (WHERE judged) AS first_slow,
           min(a_ns) FILTER (WHERE judged AND NOT slow) AS warm_from
    FROM srv_slow
    GROUP BY rl
),
cold AS MATERIALIZED (
    SELECT s.rq
    FROM srv_slow AS s JOIN warmup AS w USING (rl)
    WHERE w.first_slow AND (w.warm_from IS NULL OR s.a_ns < w.warm_from)
),
-- burst: local arrival rate on one host's clock against that host's usual
-- rate around it, within one session.
-- Each host's arrivals in one session (a host-session, numbered hid) in
-- order (t, request_id), numbered rn; the 31-arrival frame around one runs
-- from row max(rn - 15, 1) to min(rn + 15, host_n), so its first and last
-- times are those 15 rows back and ahead, else the host-session's first
-- and last.
arr_s AS (
    SELECT a.*, s.sid
    FROM arrivals AS a JOIN sess AS s ON s.m = epoch_ns(a.t) // 60000000000
),
arr_host AS MATERIALIZED (
    SELECT tier, host, sid, count(*) AS host_n,
           epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns,
           row_number() OVER (ORDER BY tier, host, sid) AS hid
    FROM arr_s
    GROUP BY tier, host, sid
),
-- The window orders a host's arrivals by (t, rq), integers, not by (t,
-- request_id): the two orders differ only among arrivals of one host at the
-- same t, and those have the same t, so every position's values (rn, the
-- times 15 back and ahead, the next time) are the same in both; only which
-- of the tied arrivals stands at which position differs, and local_tie
-- says that (tie_t is t for an arrival tied with its neighbour, else NULL).
-- bk is the hour of the host-session the arrival falls in, counted from
-- its first arrival on the same clock.
local_pos AS (
    SELECT rq, pref, hid, rn, host_n,
           (t_ns - first_ns) // 3600000000000 AS bk,
           CASE WHEN rn > 15 THEN back_ns ELSE first_ns END AS lo_ns,
           CASE WHEN rn + 15 <= host_n THEN ahead_ns ELSE last_ns END AS hi_ns,
           -- the time until the host's next arrival: the weight of this
           -- rate in the host's time-weighted median
           CASE WHEN rn < host_n THEN next_ns - t_ns ELSE 0 END AS gap_ns,
           CASE WHEN t_ns = prev_ns OR t_ns = next_ns THEN t_ns END AS tie_t
    FROM (
        SELECT a.rq, a.pref, h.hid, h.host_n, h.first_ns, h.last_ns,
               epoch_ns(a.t) AS t_ns,
               row_number() OVER w AS rn,
               epoch_ns(lag(a.t, 15) OVER w) AS back_ns,
               epoch_ns(lead(a.t, 15) OVER w) AS ahead_ns,
               epoch_ns(lead(a.t) OVER w) AS next_ns,
               epoch_ns(lag(a.t) OVER w) AS prev_ns
        FROM arr_s AS a
        JOIN arr_host AS h ON h.tier = a.tier AND h.host IS NOT DISTINCT FROM a.host AND h.sid = a.sid
        WINDOW w AS (PARTITION BY h.hid ORDER BY a.t, a.rq)
    )
),
local_rate AS MATERIALIZED (
    SELECT rq, pref, hid, rn, host_n, bk, gap_ns, tie_t,
           CASE WHEN hi_ns > lo_ns
                THEN (least(rn + 15, host_n) - greatest(rn - 15, 1)) * 1e9 / (hi_ns - lo_ns)
           END AS rate
    FROM local_pos
),
-- The request at each tied position in the order (t, request_id): of the
-- arrivals of one host at one t, the k-th by request ID stands at the k-th
-- of their positions.
local_tie AS MATERIALIZED (
    SELECT p.hid, p.rn, r.rq
    FROM (SELECT hid, tie_t, rn, row_number() OVER (PARTITION BY hid, tie_t ORDER BY rn) AS k
          FROM local_rate WHERE tie_t IS NOT NULL) AS p
    JOIN (SELECT l.hid, l.tie_t, l.rq, row_number() OVER (PARTITION BY l.hid, l.tie_t ORDER BY q.request_id) AS k
          FROM local_rate AS l JOIN req AS q ON q.rq = l.rq
          WHERE l.tie_t IS NOT NULL) AS r
      ON r.hid = p.hid AND r.tie_t = p.tie_t AND r.k = p.k
),
-- The usual rate around an hour bk of a host-session (its window wb: the
-- hours wb - 1 to wb + 1): the median of the local rate over time in the
-- window (each rate weighted by the time to the next arrival), not over
-- requests, so that a burst, which packs many requests into little time,
-- cannot become the norm: the least rate r with 2 * (the window's time at
-- rates <= r) >= its total time. Found without sorting the rates: their
-- time summed per hour in bins of 1/1024 octave (rate_bins), the bins of
-- each window's three hours added up (rate_wbins), the bin where the
-- running sum crosses half (rate_mid), then only the rates in that bin
-- ranked, after the time of the bins below it (rate_near). A window where
-- the bins would not follow the rates' order (ok false) is ranked in full
-- (rate_full).
rate_w AS (
    SELECT hid, bk, rate, gap_ns, floor(log2(rate) * 1024)::BIGINT AS bin
    FROM local_rate WHERE host_n >= 31 AND rate IS NOT NULL
),
rate_bins AS MATERIALIZED (
    SELECT hid, bk, bin, sum(gap_ns) AS ns, min(rate) AS lo, max(rate) AS hi
    FROM rate_w
    GROUP BY ALL
),
rate_wbins AS (
    SELECT x.hid, x.wb, x.bin, sum(x.ns) AS ns, min(x.lo) AS lo, max(x.hi) AS hi
    FROM (SELECT b.hid, b.bk + d.d AS wb, b.bin, b.ns, b.lo, b.hi
          FROM rate_bins AS b CROSS JOIN (VALUES (-1), (0), (1)) AS d(d)) AS x
    SEMI JOIN (SELECT DISTINCT hid, bk FROM rate_bins) AS w ON w.hid = x.hid AND w.bk = x.wb
    GROUP BY ALL
),
rate_mid AS MATERIALIZED (
    SELECT hid, wb, any_value(total) AS total, arg_min(bin, bin) AS bin, arg_min(cum - ns, bin) AS below_ns,
           arg_min((coalesce(hi_below < lo, true) AND coalesce(lo_above > hi, true)), bin) AS ok
    FROM (SELECT *, sum(ns) OVER (PARTITION BY hid, wb ORDER BY bin) AS cum,
                 sum(ns) OVER (PARTITION BY hid, wb) AS total,
                 max(hi) OVER (PARTITION BY hid, wb ORDER BY bin ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
                     AS hi_below,
                 min(lo) OVER (PARTITION BY hid, wb ORDER BY bin ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
                     AS lo_above
          FROM rate_wbins)
    WHERE 2 * cum >= total
    GROUP BY hid, wb
),
-- The rates of each window's crossing bin (a rate stands in the windows of
-- its hour and of the hours on either side).
rate_cross AS (
    SELECT x.hid, x.wb, x.rate, x.gap_ns
    FROM (SELECT w.hid, w.bk + d.d AS wb, w.bin, w.rate, w.gap_ns
          FROM (SELECT * FROM rate_w SEMI JOIN (SELECT DISTINCT hid, bin FROM rate_mid WHERE ok) AS c USING (hid, bin))
               AS w
          CROSS JOIN (VALUES (-1), (0), (1)) AS d(d)) AS x
    SEMI JOIN (SELECT hid, wb, bin FROM rate_mid WHERE ok) AS m USING (hid, wb, bin)
),
rate_near AS (
    SELECT c.hid, c.wb, min(c.rate) FILTER (WHERE 2 * (m.below_ns + c.cum_ns) >= m.total) AS usual
    FROM (SELECT hid, wb, rate,
                 sum(gap_ns) OVER (PARTITION BY hid, wb ORDER BY rate ROWS UNBOUNDED PRECEDING) AS cum_ns
          FROM rate_cross) AS c
    JOIN rate_mid AS m USING (hid, wb)
    GROUP BY c.hid, c.wb
),
rate_full AS (
    SELECT c.hid, c.wb, min(c.rate) FILTER (WHERE 2 * c.cum_ns >= m.total) AS usual
    FROM (SELECT hid, wb, rate,
                 sum(gap_ns) OVER (PARTITION BY hid, wb ORDER BY rate ROWS UNBOUNDED PRECEDING) AS cum_ns
          FROM (SELECT w.hid, w.bk + d.d AS wb, w.rate, w.gap_ns
                FROM rate_w AS w CROSS JOIN (VALUES (-1), (0), (1)) AS d(d)) AS x
          SEMI JOIN (SELECT hid, wb FROM rate_mid WHERE NOT ok) AS m USING (hid, wb)) AS c
    JOIN rate_mid AS m USING (hid, wb)
    GROUP BY c.hid, c.wb
),
usual_rate AS MATERIALIZED (
    SELECT hid, wb, usual FROM rate_near
    UNION ALL
    SELECT hid, wb, usual FROM rate_full
),
-- Each judged arrival position (its hour has a usual rate; the host-session
-- >= 31 arrivals) and whether its local rate is >= 2x that usual rate.
rate_pos AS (
    SELECT coalesce(t.rq, l.rq) AS rq, l.pref, l.hid, l.rn,
           coalesce(l.rate >= 2 * u.usual, false) AS high
    FROM local_rate AS l
    JOIN usual_rate AS u ON u.hid = l.hid AND u.wb = l.bk
    LEFT JOIN local_tie AS t ON t.hid = l.hid AND t.rn = l.rn
    WHERE l.host_n >= 31 AND u.usual > 0
),
-- Runs of consecutive high arrivals of a host-session; only a run of >= 31
-- is a burst (a chance cluster of a steady stream is shorter). A run is a
-- block of consecutive rn of one host that are all high: rn minus the rank
-- of the row among the high rows is constant in it.
rate_runs AS (
    SELECT rq, pref, hid, rn - row_number() OVER (PARTITION BY hid ORDER BY rn) AS run
    FROM rate_pos
    WHERE high
),
burst_runs AS (
    SELECT hid, run
    FROM rate_runs
    GROUP BY hid, run
    HAVING count(*) >= 31
),
-- A request's burst flag comes from its first tier on the path that is
-- judged (gateway, else client, else server: pref); burst holds the
-- requests it flags.
burst AS MATERIALIZED (
    SELECT DISTINCT b.rq, true AS is_burst
    FROM (SELECT r.rq, r.pref FROM rate_runs AS r SEMI JOIN burst_runs AS b ON b.hid = r.hid AND b.run = r.run) AS b
    ANTI JOIN rate_pos AS p ON p.rq = b.rq AND p.pref < b.pref
),
-- Queue busy periods of each replica, on its clock: a request opens a new
-- one when every earlier arrival had left the queue (arrival + queue <= its
-- arrival); later arrivals of the period waited behind the earlier ones.
-- g numbers each replica's server records in order (arrival, request_id);
-- opens compares the arrival with the latest queue exit of the replica's
-- rows before it (both from one sort: the same partition and order).
srv_g AS MATERIALIZED (
    SELECT p.rq, p.replica,
           row_number() OVER (PARTITION BY p.replica ORDER BY p.a_ns, p.request_id) AS g,
           NOT coalesce(p.a_ns < max(p.a_ns + p.q_ns) OVER (
               PARTITION BY p.replica ORDER BY p.a_ns, p.request_id
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS opens
    FROM srv_p AS p
),
srv_open AS (
    SELECT s.rq, s.replica, s.g, s.opens,
           cd.rq IS NOT NULL AS is_cold,
           coalesce(b.is_burst, false) AS is_burst
    FROM srv_g AS s
    LEFT JOIN cold AS cd ON cd.rq = s.rq
    LEFT JOIN burst AS b ON b.rq = s.rq
),
-- A request is behind a cold (burst) one when the latest cold (burst)
-- position at or before it is at or after its busy period's first position.
-- Each server record's flags: its concurrency, whether it is cold itself
-- and whether it waited behind a cold or a burst request.
srv_flags AS MATERIALIZED (
    SELECT q.rq, c.concurrency, q.is_cold AS cold,
           coalesce(max(CASE WHEN q.is_cold THEN q.g END) OVER w >= max(CASE WHEN q.opens THEN q.g END) OVER w,
                    false) AS behind_cold,
           coalesce(max(CASE WHEN q.is_burst THEN q.g END) OVER w >= max(CASE WHEN q.opens THEN q.g END) OVER w,
                    false) AS behind_burst
    FROM srv_open AS q
    LEFT JOIN conc AS c ON c.rq = q.rq
    WINDOW w AS (PARTITION BY q.replica ORDER BY q.g ROWS UNBOUNDED PRECEDING)
),
-- The output order: each request's position ord by (start, request_id),
-- start as in j below (request IDs are unique, so the order is total). The
-- requests' own columns, flags and annotations, in that order: sorted once,
-- then numbered as they come (row_number() OVER () is DuckDB's streaming
-- window, which runs on one thread in its input's order; a window ordered
-- by the key would sort the rows a second time).
req_o AS MATERIALIZED (
    SELECT *, row_number() OVER () AS ord
    FROM (SELECT i.request_id, i.c_rid, i.g_rid, i.s_rid, i.c_records, i.g_records, i.s_records, i.c_how, i.g_how,
                 a.concurrency, a.cold, a.behind_cold, a.behind_burst, b.is_burst,
                 an.n_annotations, an.finish_reason AS an_finish_reason, an.error AS an_error
          FROM req AS i
          LEFT JOIN srv_flags AS a ON a.rq = i.rq
          LEFT JOIN burst AS b ON b.rq = i.rq
          LEFT JOIN annot AS an ON an.request_id = i.request_id
          ORDER BY coalesce(i.c_start::TIMESTAMP_NS, i.g_start::TIMESTAMP_NS, i.arrival_time::TIMESTAMP_NS) NULLS LAST,
                   i.request_id)
),
-- Each tier's kept record of every request, picked up by its row id (a
-- NULL row where the request has none), in the same order: j lines the
-- four tables up by position, so the rows are never joined wide nor sorted
-- whole.
client_o AS MATERIALIZED (
    SELECT o.ord AS c_ord, c.start_time, c.first_token_time, c.end_time, c.model, c.use_case, c.streamed,
           c.status, c.error, c.prompt_tokens, c.output_tokens, c.client, c.region, c.format,
           c.e2e_ns, c.ttft_ns, c.source_file, c.source_line
    FROM req_o AS o LEFT JOIN client AS c ON c.rid = o.c_rid
    ORDER BY o.ord
),
gateway_o AS MATERIALIZED (
    SELECT o.ord AS g_ord, g.start_time, g.upstream_start_time, g.upstream_first_byte_time, g.upstream_end_time,
           g.end_time, g.status, g.response_flags, g.gateway, g.route, g.format, g.ttft_ns,
           g.source_file, g.source_line
    FROM req_o AS o LEFT JOIN gateway AS g ON g.rid = o.g_rid
    ORDER BY o.ord
),
server_o AS MATERIALIZED (
    SELECT o.ord AS s_ord, s.arrival_time, s.scheduled_time, s.first_token_time, s.end_time, s.model, s.status,
           s.prompt_tokens, s.output_tokens, s.replica, s.finish_reason, s.error, s.format, s.joined_by,
           s.match_candidates, s.e2e_ns, s.queue_ns, s.ttft_ns, s.prefill_ns, s.decode_ns, s.inference_ns,
           s.load_ns, s.source_file, s.source_line
    FROM req_o AS o LEFT JOIN server AS s ON s.rid = o.s_rid
    ORDER BY o.ord
),
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
               ELSE error('requests.sql: the tiers'' rows are out of step with the requests') END
),
-- Server measures: the server's own durations first, else its instants;
-- the client's the same way (measured beats derived, see the header).
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
        -- aborted in the header).
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
SELECT * FROM r
