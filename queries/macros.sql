-- macros.sql: the statistical rules every query shares, stated once.
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
-- wilson_lo(k, n), wilson_hi(k, n): the Wilson score 95% interval of the
--   share k of n (z = 1.959964, z^2 = 3.841459); NULL when n = 0.
CREATE OR REPLACE MACRO wilson_lo(k, n) AS
    CASE WHEN n > 0 THEN (k + 1.920729 - 1.959964 * sqrt(k * (n - k) / n + 0.960365)) / (n + 3.841459) END;
CREATE OR REPLACE MACRO wilson_hi(k, n) AS
    CASE WHEN n > 0 THEN (k + 1.920729 + 1.959964 * sqrt(k * (n - k) / n + 0.960365)) / (n + 3.841459) END;
-- Every statement above is a macro; this file's last statement shows that
-- they exist (and gives the file its SELECT).
SELECT pct_too_small(99, 0.99) AND NOT pct_too_small(100, 0.99) AS ok;
