-- tgi_candidates.sql: the gateway records each TGI row could be, for
-- analyze to match TGI rows (format = 'tgi', no request ID) to gateway
-- records by time. Reads the gateway view and server_logged (the server
-- tier as ingested); analyze stores the result as the tgi_cand table, picks
-- matches with tgi_round.sql and then fills request_id in the server view
-- (server_matched.sql).
--
-- The TGI router and the gateway are different hosts, so their instants
-- cannot be compared directly; only their offset, unknown but constant, can
-- be estimated:
--   1. TGI rows: end_time (the Success log line, TGI host wall clock) and
--      e2e_ns (total_time); arrival = end - e2e. Exact duplicates (equal in
--      everything but the source line) are one row, t_key a hash of the
--      content. A TGI host is its replica label, else its log file.
--   2. Gateway records: the kept record per request ID (latest start, as in
--      requests.sql) with upstream_start and upstream_end, whose request ID
--      has no timing server record of its own (those are already joined).
--      A gateway host is its gateway label, else its log file. When a TGI
--      row's replica label equals an upstream the gateway logged, only
--      records of that upstream are candidates.
--   3. Coarse pairs: gateway upstream_end within 60 s of TGI end, both
--      ways (a larger host offset is not matched). d_end = gateway
--      upstream_end - TGI end, d_start = gateway upstream_start - TGI
--      arrival: each is the host offset plus a small hop.
--   4. Offset per (TGI host, gateway host), from a sample of up to 256 TGI
--      rows per TGI host: among pairs whose durations
--      agree (TGI e2e <= upstream time + 50 ms and upstream time - TGI e2e
--      <= 1 s), the 50 ms x 50 ms cell of (d_end, d_start) holding the most
--      pairs (ties: the smaller |d_end|). True pairs pile up in one cell;
--      chance pairs spread over ~50,000 cells. The cell counts only when it
--      holds >= 3 pairs and >= 10 times the pairs an average cell would.
--      Its inliers are the agreeing pairs within 100 ms of the cell's centre
--      in both. The offsets off_end and off_start are least-squares lines of
--      d_end and d_start over the TGI end time through the inliers: constant
--      host offsets plus the slow drift of one clock against the other
--      (ppm: tens of ms over hours), which would otherwise eat the
--      tolerance at the ends of a long log.
--   5. Candidates (all TGI rows, compared only with gateway records near
--      their shifted end): pairs with |d_end - off_end| <= 100 ms, |d_start -
--      off_start| <= 100 ms and TGI e2e <= upstream time + 50 ms. score =
--      |d_end - off_end| + |d_start - off_start| in ns: both ends of the
--      request must line up once the offset is removed. n_cand is the number
--      of candidates of the TGI row; >= 2 is ambiguous.
WITH
tgi AS (
    SELECT hash(end_time, e2e_ns, queue_ns, inference_ns, arrival_time, scheduled_time,
                output_tokens, error, replica, model) AS t_key,
           coalesce(any_value(replica), min(source_file)) AS t_host,
           any_value(replica) AS replica,
           epoch_ns(any_value(end_time)) AS t_end,
           any_value(e2e_ns) AS t_e2e
    FROM server_logged
    WHERE format = 'tgi' AND request_id IS NULL AND end_time IS NOT NULL AND e2e_ns >= 0
    GROUP BY t_key
),
gw AS (
    SELECT g.request_id,
           coalesce(g.gateway, g.source_file) AS g_host,
           g.upstream,
           epoch_ns(g.upstream_start_time) AS g_start,
           epoch_ns(g.upstream_end_time) AS g_end
    FROM gateway AS g
    WHERE g.request_id IS NOT NULL
      AND g.upstream_start_time IS NOT NULL AND g.upstream_end_time IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM server_logged AS s
                      WHERE s.request_id = g.request_id AND s.format IS DISTINCT FROM 'vllm-log')
    QUALIFY row_number() OVER (
        PARTITION BY g.request_id
        ORDER BY g.start_time DESC NULLS LAST, g.end_time DESC NULLS LAST,
                 g.source_file DESC, g.source_line DESC) = 1
),
upstreams AS (SELECT DISTINCT upstream FROM gw WHERE upstream IS NOT NULL),
tgi_tied AS (
    SELECT t.*, u.upstream AS tied_upstream
    FROM tgi AS t LEFT JOIN upstreams AS u ON u.upstream = t.replica
),
-- The offset is estimated from a sample of up to 256 rows per TGI host
-- (pseudo-random: the lowest content hashes), which keeps the coarse pairs
-- to 256 x (gateway records in two minutes) per host.
sample AS (
    SELECT * FROM tgi_tied
    QUALIFY row_number() OVER (PARTITION BY t_host ORDER BY t_key) <= 256
),
pairs AS (
    SELECT t.t_host, g.g_host, t.t_end,
           g.g_end - t.t_end AS d_end,
           g.g_start - (t.t_end - t.t_e2e) AS d_start
    FROM sample AS t JOIN gw AS g
      ON g.g_end BETWEEN t.t_end - 60000000000 AND t.t_end + 60000000000
    WHERE (t.tied_upstream IS NULL OR g.upstream = t.tied_upstream)
      AND t.t_e2e <= g.g_end - g.g_start + 50000000
      AND g.g_end - g.g_start - t.t_e2e <= 1000000000
),
cells AS (
    SELECT *, sum(n) OVER (PARTITION BY t_host, g_host) AS total
    FROM (
        SELECT t_host, g_host,
               floor(d_end / 50000000)::BIGINT AS ce, floor(d_start / 50000000)::BIGINT AS cs,
               count(*) AS n
        FROM pairs
        GROUP BY t_host, g_host, ce, cs
    )
),
best AS (
    SELECT t_host, g_host, ce * 50000000 + 25000000 AS c_end, cs * 50000000 + 25000000 AS c_start
    FROM cells
    -- ~2,400 cells of d_end (+-60 s) times ~21 of d_start - d_end (1.05 s)
    WHERE n >= 3 AND n >= 10 * total / 50400.0
    QUALIFY row_number() OVER (PARTITION BY t_host, g_host ORDER BY n DESC, abs(ce), abs(cs)) = 1
),
-- The offset as a line over time (host clocks drift apart by some ppm, tens
-- of ms over hours): least squares of d_end and d_start over the TGI end,
-- in seconds from the inliers' mean, on the inliers of the best cell.
inliers AS (
    SELECT a.*, (a.t_end - avg(a.t_end) OVER (PARTITION BY a.t_host, a.g_host)) / 1e9 AS x
    FROM pairs AS a JOIN best AS b USING (t_host, g_host)
    WHERE abs(a.d_end - b.c_end) <= 100000000 AND abs(a.d_start - b.c_start) <= 100000000
),
offsets AS (
    SELECT t_host, g_host,
           avg(t_end) AS t_ref,
           avg(d_end) AS off_end,
           coalesce(regr_slope(d_end, x), 0) AS drift_end,
           avg(d_start) AS off_start,
           coalesce(regr_slope(d_start, x), 0) AS drift_start,
           count(*) AS support
    FROM inliers
    GROUP BY t_host, g_host
),
-- Candidates: every TGI row against the gateway records of each gateway
-- host with an offset, joined on 200 ms buckets of the gateway's clock
-- (the TGI end moved by the offset, and the buckets on either side) so
-- that only records within the tolerance are compared.
shifted AS (
    SELECT *, unnest([-1, 0, 1]) + floor((t_end + off_end) / 200000000)::BIGINT AS bucket
    FROM (
        SELECT t.*, o.g_host, o.support,
               round(o.off_end + o.drift_end * (t.t_end - o.t_ref) / 1e9)::BIGINT AS off_end,
               round(o.off_start + o.drift_start * (t.t_end - o.t_ref) / 1e9)::BIGINT AS off_start
        FROM tgi_tied AS t JOIN offsets AS o USING (t_host)
    )
),
gw_b AS (
    SELECT *, floor(g_end / 200000000)::BIGINT AS bucket FROM gw
),
cand AS (
    SELECT t.t_key, g.request_id,
           abs(g.g_end - t.t_end - t.off_end)
             + abs(g.g_start - (t.t_end - t.t_e2e) - t.off_start) AS score,
           t.off_end, t.off_start, t.support
    FROM shifted AS t JOIN gw_b AS g ON g.g_host = t.g_host AND g.bucket = t.bucket
    WHERE (t.tied_upstream IS NULL OR g.upstream = t.tied_upstream)
      AND abs(g.g_end - t.t_end - t.off_end) <= 100000000
      AND abs(g.g_start - (t.t_end - t.t_e2e) - t.off_start) <= 100000000
      AND t.t_e2e <= g.g_end - g.g_start + 50000000
)
SELECT t_key, request_id, score,
       count(*) OVER (PARTITION BY t_key) AS n_cand,
       off_end, off_start, support
FROM cand
