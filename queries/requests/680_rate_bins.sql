-- rate_bins: per host-session, hour and rate bin, the time at those rates
-- (ns) and their min and max (see rate_w).
--
-- reads: rate_w
-- writes: rate_bins
CREATE OR REPLACE TEMP TABLE rate_bins AS
SELECT hid, bk, bin, sum(gap_ns) AS ns, min(rate) AS lo, max(rate) AS hi
FROM rate_w
GROUP BY ALL;
