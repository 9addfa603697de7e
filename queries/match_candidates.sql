-- match_candidates.sql: the pairs of a time match between records of a
-- server host that log no key the other side knows ("TGI rows" below) and
-- gateway records, for analyze (match.go) to match them one-to-one. It reads
-- two tables analyze fills before it, one pair per kind of match:
--   match_t (t_key, t_ord, t_host, replica, t_end, t_e2e): the server side,
--     one row per record (exact duplicates once): its key, a hash that
--     orders the sample below, its host, its replica label, its end and
--     its E2E duration (ns, on the server host's clock);
--   match_g (g_key, g_host, upstream, g_start, g_end): the gateway side:
--     its key, its host, its upstream and the span it logged around the
--     upstream call (ns, on the gateway host's clock).
-- The two kinds (match.go): TGI and Ollama JSON rows, which log no request
-- ID, against gateway records that have one (tgi_rows.sql,
-- tgi_gateways.sql); and gateway records that log no request ID (Kong
-- before 3.5, NGINX formats without $request_id) against server records
-- that have one no gateway record logs (noid_servers.sql,
-- noid_gateways.sql).
--
-- The TGI router and the gateway are different hosts, so their instants
-- cannot be compared directly; only their offset, unknown but constant, can
-- be estimated:
--   1. Server records: end t_end and E2E t_e2e; arrival = end - e2e.
--   2. Gateway records: the span the gateway logged around the upstream
--      call: upstream_start and upstream_end where it logged both, else its
--      own start and end (Envoy's default format logs only %START_TIME% and
--      %DURATION%: the span then also holds the gateway's own work before
--      and after the call, which the tolerance below absorbs). A gateway
--      host is its gateway label, else its log file, and records of the two
--      kinds are separate hosts (their offsets differ by the gateway's own
--      work). When a TGI row's replica label equals an upstream the gateway
--      logged, only records of that upstream are candidates.
--   3. Coarse pairs ("upstream" below is the span of step 2): gateway
--      upstream_end within 60 s of TGI end, both
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
--      in both. The offsets off_end and off_start are lines of d_end and
--      d_start over the TGI end time through the inliers (slope and level
--      by medians, Theil-Sen, which outliers cannot move): constant
--      host offsets plus the slow drift of one clock against the other
--      (ppm: tens of ms over hours), which would otherwise eat the
--      tolerance at the ends of a long log.
--   5. Tolerances per (TGI host, gateway host), estimated from the data:
--      tol_end = 10 x the median of |d_end - off_end| over the inliers (the
--      median, as chance pairs in the cell must not widen it; 10 x reaches
--      about the P99 of an exponential spread), tol_start the same of
--      d_start, each kept within [10 ms, 100 ms]: 10 ms covers Envoy's
--      whole-ms truncation and a hop. A gateway that logs its upstream
--      span gives residuals of a network hop (10 ms); one that logs only
--      its own start and end adds its own work (auth, routing) to the
--      spread, and a wide one gets a wider tolerance.
--   6. Candidates (all TGI rows, compared only with gateway records near
--      their shifted end): pairs with |d_end - off_end| <= tol_end, |d_start -
--      off_start| <= tol_start and TGI e2e <= upstream time + 50 ms. score =
--      |d_end - off_end| + |d_start - off_start| in ns: both ends of the
--      request must line up once the offset is removed. n_cand is the number
--      of candidates of the TGI row; >= 2 is ambiguous.
WITH
gw AS (SELECT * FROM match_g),
upstreams AS (SELECT DISTINCT upstream FROM gw WHERE upstream IS NOT NULL),
tgi_tied AS (
    SELECT t.*, u.upstream AS tied_upstream
    FROM match_t AS t LEFT JOIN upstreams AS u ON u.upstream = t.replica
),
-- The offset is estimated from a sample of up to 256 rows per TGI host
-- (pseudo-random: the lowest t_ord, a hash), which keeps the coarse pairs
-- to 256 x (gateway records in two minutes) per host.
sample AS (
    SELECT * FROM tgi_tied
    QUALIFY row_number() OVER (PARTITION BY t_host ORDER BY t_ord, t_key) <= 256
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
-- The slope of each line is the median of the slopes between every two
-- inliers (Theil-Sen) and its level the median of the inliers around it,
-- not least squares: a few requests on which the gateway spent far longer
-- (a slow auth path) must move neither.
pair_slopes AS (
    SELECT a.t_host, a.g_host,
           median((b.d_end - a.d_end) / (b.x - a.x)) AS drift_end,
           median((b.d_start - a.d_start) / (b.x - a.x)) AS drift_start
    FROM inliers AS a JOIN inliers AS b
      ON b.t_host = a.t_host AND b.g_host = a.g_host AND b.x > a.x
    GROUP BY a.t_host, a.g_host
),
slopes AS (
    SELECT i.t_host, i.g_host,
           avg(i.t_end) AS t_ref,
           coalesce(any_value(p.drift_end), 0) AS drift_end,
           coalesce(any_value(p.drift_start), 0) AS drift_start,
           count(*) AS support
    FROM inliers AS i LEFT JOIN pair_slopes AS p USING (t_host, g_host)
    GROUP BY i.t_host, i.g_host
),
offsets AS (
    SELECT i.t_host, i.g_host,
           any_value(s.t_ref) AS t_ref,
           median(i.d_end - s.drift_end * i.x) AS off_end,
           any_value(s.drift_end) AS drift_end,
           median(i.d_start - s.drift_start * i.x) AS off_start,
           any_value(s.drift_start) AS drift_start,
           any_value(s.support) AS support
    FROM inliers AS i JOIN slopes AS s USING (t_host, g_host)
    GROUP BY i.t_host, i.g_host
),
-- The tolerances, from the inliers' residuals around the offset lines.
tolerances AS (
    SELECT i.t_host, i.g_host,
           least(100000000, greatest(10000000, 10 * median(
               abs(i.d_end - (o.off_end + o.drift_end * (i.t_end - o.t_ref) / 1e9)))))::BIGINT AS tol_end,
           least(100000000, greatest(10000000, 10 * median(
               abs(i.d_start - (o.off_start + o.drift_start * (i.t_end - o.t_ref) / 1e9)))))::BIGINT AS tol_start
    FROM inliers AS i JOIN offsets AS o USING (t_host, g_host)
    GROUP BY i.t_host, i.g_host
),
-- Candidates: every TGI row against the gateway records of each gateway
-- host with an offset, joined on 200 ms buckets of the gateway's clock
-- (the TGI end moved by the offset, and the buckets on either side) so
-- that only records within the tolerance are compared.
shifted AS (
    SELECT *, unnest([-1, 0, 1]) + floor((t_end + off_end) / 200000000)::BIGINT AS bucket
    FROM (
        SELECT t.*, o.g_host, o.support, l.tol_end, l.tol_start,
               round(o.off_end + o.drift_end * (t.t_end - o.t_ref) / 1e9)::BIGINT AS off_end,
               round(o.off_start + o.drift_start * (t.t_end - o.t_ref) / 1e9)::BIGINT AS off_start
        FROM tgi_tied AS t JOIN offsets AS o USING (t_host)
        JOIN tolerances AS l ON l.t_host = o.t_host AND l.g_host = o.g_host
    )
),
gw_b AS (
    SELECT *, floor(g_end / 200000000)::BIGINT AS bucket FROM gw
),
cand AS (
    SELECT t.t_key, g.g_key,
           abs(g.g_end - t.t_end - t.off_end)
             + abs(g.g_start - (t.t_end - t.t_e2e) - t.off_start) AS score,
           t.off_end, t.off_start, t.support, t.tol_end, t.tol_start
    FROM shifted AS t JOIN gw_b AS g ON g.g_host = t.g_host AND g.bucket = t.bucket
    WHERE (t.tied_upstream IS NULL OR g.upstream = t.tied_upstream)
      AND abs(g.g_end - t.t_end - t.off_end) <= t.tol_end
      AND abs(g.g_start - (t.t_end - t.t_e2e) - t.off_start) <= t.tol_start
      AND t.t_e2e <= g.g_end - g.g_start + 50000000
)
SELECT t_key, g_key, score,
       count(*) OVER (PARTITION BY t_key) AS n_cand,
       off_end, off_start, support, tol_end, tol_start
FROM cand
