-- macros.sql: the statistical rules every query shares, stated once, and
-- the round-off of the formats' clocks (clock_round_off_ns).
-- analyze creates these macros when it opens a database (openIn), one
-- statement per ';'-separated part, so contract_*.sql, slice_quality.sql
-- and the percentile intervals of the slice, phase and replica tables
-- (pct_ci.sql) all use the same formulas.
--
-- pct_too_small(n, q): a percentile q (0 < q < 1) from n samples cannot be
--   supported when n < 1/(1 - q): P99 from fewer than 100, P95 from fewer
--   than 20, P90 from fewer than 10, P50 from fewer than 2. Reports show
--   "n too small" instead of a number, and no verdict, finding or
--   headline rests on it (analyze/findings.go reads these flags).
CREATE OR REPLACE MACRO pct_too_small(n, q) AS n < ceil(round(1 / (1 - q), 6));
-- pct_lo_rank(n, q), pct_hi_rank(n, q): the ranks (1 = smallest) of the
--   order statistics that bound the distribution-free 95% confidence
--   interval of the q quantile: the number of samples below the true
--   quantile is Binomial(n, q); with its normal approximation the interval
--   is [x(floor(nq - 1.96 sqrt(nq(1-q)))), x(ceil(nq + 1.96 sqrt(nq(1-q))) + 1)].
--   A rank outside 1..n leaves that bound open (NULL).
CREATE OR REPLACE MACRO pct_lo_rank(n, q) AS floor(n * q - 1.959964 * sqrt(n * q * (1 - q)));
CREATE OR REPLACE MACRO pct_hi_rank(n, q) AS ceil(n * q + 1.959964 * sqrt(n * q * (1 - q))) + 1;
-- pct_bucket(value): the bucket of a sample in pct.sql, an INTEGER that
--   never decreases as the value grows (x <= y gives pct_bucket(x) <=
--   pct_bucket(y)): 256 per unit of the fourth root of |value|, negative
--   values below zero. sqrt, floor and multiplying by 256 are exact or
--   correctly rounded, so the order holds exactly. A bucket spans about
--   0.3% of the value at 1000 ms, 1.6% at 1 ms.
CREATE OR REPLACE MACRO pct_bucket(value) AS
    CASE WHEN value >= 0 THEN least(floor(sqrt(sqrt(value)) * 256), 1e9)
         ELSE -least(floor(sqrt(sqrt(-value)) * 256), 1e9) - 1
    END::INTEGER;
-- pct_interp(n, q, r, value): an aggregate over the samples of one group
--   given by their rank r (1 = smallest) among its n: its q quantile as
--   DuckDB's quantile_cont computes it, from the samples at ranks
--   floor(pos) + 1 (lo) and ceil(pos) + 1 (hi), pos = (n - 1) q: lo when
--   they are one, else lo (1 - d) + hi d, d = pos - floor(pos) (DuckDB's
--   own interpolation, rounding included). pct.sql gives it only the
--   samples at the ranks it needs.
CREATE OR REPLACE MACRO pct_interp(n, q, r, value) AS
    CASE WHEN floor((n - 1) * q::DOUBLE) = ceil((n - 1) * q::DOUBLE)
         THEN max(value) FILTER (WHERE r = floor((n - 1) * q::DOUBLE) + 1)
         ELSE max(value) FILTER (WHERE r = floor((n - 1) * q::DOUBLE) + 1)
                * (1.0::DOUBLE - ((n - 1) * q::DOUBLE - floor((n - 1) * q::DOUBLE)))
              + max(value) FILTER (WHERE r = ceil((n - 1) * q::DOUBLE) + 1)
                * ((n - 1) * q::DOUBLE - floor((n - 1) * q::DOUBLE))
    END;
-- wilson_lo(k, n), wilson_hi(k, n): the Wilson score 95% interval of the
--   share k of n (z = 1.959964, z^2 = 3.841459); NULL when n = 0.
CREATE OR REPLACE MACRO wilson_lo(k, n) AS
    CASE WHEN n > 0 THEN (k + 1.920729 - 1.959964 * sqrt(k * (n - k) / n + 0.960365)) / (n + 3.841459) END;
CREATE OR REPLACE MACRO wilson_hi(k, n) AS
    CASE WHEN n > 0 THEN (k + 1.920729 + 1.959964 * sqrt(k * (n - k) / n + 0.960365)) / (n + 3.841459) END;
-- clock_round_off_ns(format): how far below zero a duration of one
--   server record can read from the round-off of its format's clock alone,
--   in ns: queries/requests calls a same-tier server duration (queue, server
--   overhead, ...) negative, an anomaly, only below -clock_round_off_ns,
--   and keeps its value as computed (components still add up). SGLang
--   (sglang-metrics; sglang-log, which the sglang-text reader writes too)
--   logs Python floats of epoch seconds: at today's epoch (2^30 to 2^31 s)
--   one float step is 2^-22 s = 0.24 us and a reading is off by up to half
--   of it; a server overhead combines up to six readings (e2e_latency and
--   queue_time are differences of two each), up to 0.72 us, 1.4 us when
--   each instant was itself converted from a perf_counter float. 5 us (20
--   float steps) covers that with room and is far below any overhead a
--   server really has. Every other server format logs integers of its unit
--   (ns, us) or decimals read exactly: 0.
CREATE OR REPLACE MACRO clock_round_off_ns(format) AS
    CASE WHEN format IN ('sglang-metrics', 'sglang-log') THEN 5000 ELSE 0 END;
-- request_outcome(completed, aborted, status): why a request is no
--   latency sample, NULL when it is one. The requests every latency
--   percentile of a report is over ("successful") are the completed ones
--   (queries/requests: status 2xx, or no status and no error logged) that were
--   not aborted (the client did not leave before the response ended). A
--   failed request (not completed: an error rate's numerator) gives its
--   status as text ('500', '429', '408', '499', '0' for a client that
--   logged none on a cancel), 'error' without a status; a completed but
--   aborted one (e.g. NGINX's 200 for a stream its client left) 'aborted'.
--   analyze's sliced view carries it as outcome, and succeeded = outcome
--   IS NULL; sliced_ok holds the successful requests.
CREATE OR REPLACE MACRO request_outcome(completed, aborted, status) AS
    CASE WHEN NOT completed THEN coalesce(CAST(status AS VARCHAR), 'error')
         WHEN aborted THEN 'aborted' END;
-- response_request_id(response_id): the request ID vLLM built a client's
--   response ID from ("chatcmpl-X" and "cmpl-X-N" are X's; see
--   docs/attribution.md), else the response ID itself: the one definition of
--   that rule in SQL (queries/requests/360_client_miss.sql; analyze's
--   Partitions hashes it as a key).
CREATE OR REPLACE MACRO response_request_id(response_id) AS
    CASE WHEN starts_with(response_id, 'chatcmpl-') AND response_id <> 'chatcmpl-'
             THEN substr(response_id, 10)
         WHEN regexp_matches(response_id, '(?s)^cmpl-.+-[0-9]+$')
             THEN regexp_extract(response_id, '(?s)^cmpl-(.+)-[0-9]+$', 1)
         WHEN starts_with(response_id, 'cmpl-') AND response_id <> 'cmpl-'
             THEN substr(response_id, 6)
         ELSE response_id END;
-- server_replica(label, path): the replica of a server record: its label,
--   else (formats that name none: Ollama, TGI) 'file ' and the path of its
--   log (a log appended again under its name is the same replica). The path
--   names it alike in every analysis of the store, a window's too, so that
--   the facts of windows (fact_rep) merge by it (queries/requests/515_srv_a).
CREATE OR REPLACE MACRO server_replica(label, path) AS coalesce(label, 'file ' || path);
-- The facts of the other windows (docs/partitions.md, "Windows cut inside a
-- session"): what the arrival steps, the replica lifetimes (srv_p) and the
-- replicas' yardsticks and warm-up (srv_q, srv_usual, warmup) of
-- queries/requests read beyond the requests a window analyzes. Here, with no other window, they are empty
-- and arr_owned holds every arrival, so the steps compute what the whole
-- store gives; analyze replaces them (TEMP macros) when it analyzes one
-- window of a plan whose facts it wrote.
-- arr_owned(rq): whether the arrival of the request rq is this window's
--   own (its request starts in the window).
CREATE OR REPLACE MACRO arr_owned(rq) AS true;
-- fact_min(): the other windows' kept arrivals per tier, host and Unix
--   minute m: how many (n), the first and the last (ns).
CREATE OR REPLACE MACRO fact_min() AS TABLE
    SELECT NULL::VARCHAR AS tier, NULL::VARCHAR AS host, NULL::BIGINT AS m, NULL::BIGINT AS n,
           NULL::BIGINT AS first_ns, NULL::BIGINT AS last_ns
    WHERE false;
-- fact_bound(): per tier and host, the Unix minutes of the other windows'
--   arrivals that fact_arr holds, lo_m to hi_m (excluded): every arrival of
--   those minutes is in it or is this window's own; none before lo_m is.
CREATE OR REPLACE MACRO fact_bound() AS TABLE
    SELECT NULL::VARCHAR AS tier, NULL::VARCHAR AS host, NULL::BIGINT AS lo_m, NULL::BIGINT AS hi_m
    WHERE false;
-- fact_arr(): the other windows' kept arrivals within fact_bound(), as the
--   arrivals step has them; rq is negative (no request of this window's).
CREATE OR REPLACE MACRO fact_arr() AS TABLE
    SELECT NULL::BIGINT AS rq, NULL::VARCHAR AS request_id, NULL::INTEGER AS pref, NULL::VARCHAR AS tier,
           NULL::VARCHAR AS host, NULL::TIMESTAMP_NS AS t
    WHERE false;
-- fact_rep(): the other windows' server records per replica
--   (server_replica) and Unix minute m: the first and the last arrival (ns).
CREATE OR REPLACE MACRO fact_rep() AS TABLE
    SELECT NULL::VARCHAR AS replica, NULL::BIGINT AS m, NULL::BIGINT AS first_ns, NULL::BIGINT AS last_ns
    WHERE false;
-- fact_replica(), fact_model(): the replicas (server_replica) and the
--   models of the store's server records (the yardsticks' records,
--   facts.go), so that srv_p numbers them alike in every window.
CREATE OR REPLACE MACRO fact_replica() AS TABLE
    SELECT NULL::VARCHAR AS replica WHERE false;
CREATE OR REPLACE MACRO fact_model() AS TABLE
    SELECT NULL::VARCHAR AS model WHERE false;
-- fact_usual(), fact_tpot(), fact_warm(): the yardsticks of the whole
--   store (facts.go: the steps srv_p ... warmup over every window's server
--   records): each replica lifetime's srv_usual row (rl), each model,
--   session and concurrency bucket's P50 TPOT (msc, srv_q's kind 2), each
--   judged lifetime's warmup row (rl); keyed as srv_p keys them.
CREATE OR REPLACE MACRO fact_usual() AS TABLE
    SELECT NULL::BIGINT AS rl, NULL::BIGINT AS n, NULL::DOUBLE AS tpot_p25, NULL::DOUBLE AS pf_p90,
           NULL::DOUBLE AS work_p50, NULL::DOUBLE AS ld_p50
    WHERE false;
CREATE OR REPLACE MACRO fact_tpot() AS TABLE
    SELECT NULL::BIGINT AS msc, NULL::DOUBLE AS tpot WHERE false;
CREATE OR REPLACE MACRO fact_warm() AS TABLE
    SELECT NULL::BIGINT AS rl, NULL::BOOLEAN AS first_slow, NULL::BIGINT AS warm_from WHERE false;
-- Every statement above is a macro; this file's last statement shows that
-- they exist (and gives the file its SELECT).
SELECT pct_too_small(99, 0.99) AND NOT pct_too_small(100, 0.99) AS ok;
