-- rate_mid: per window, the bin where the running sum of time crosses half
-- (bin), the time below it (below_ns), and whether the bins follow the
-- rates' order (ok).
--
-- reads: rate_bins
-- writes: rate_mid
CREATE OR REPLACE TEMP TABLE rate_mid AS
WITH
rate_wbins AS (
    SELECT x.hid, x.wb, x.bin, sum(x.ns) AS ns, min(x.lo) AS lo, max(x.hi) AS hi
    FROM (SELECT b.hid, b.bk + d.d AS wb, b.bin, b.ns, b.lo, b.hi
          FROM rate_bins AS b CROSS JOIN (VALUES (-1), (0), (1)) AS d(d)) AS x
    SEMI JOIN (SELECT DISTINCT hid, bk FROM rate_bins) AS w ON w.hid = x.hid AND w.bk = x.wb
    GROUP BY ALL
)
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
GROUP BY hid, wb;
