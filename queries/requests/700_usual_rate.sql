-- usual_rate: each window's usual rate: from its crossing bin (rate_near),
-- or ranked in full where the bins fail (rate_full).
--
-- reads: rate_mid, rate_w
-- writes: usual_rate
CREATE OR REPLACE TEMP TABLE usual_rate AS
WITH
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
)
SELECT hid, wb, usual FROM rate_near
UNION ALL
SELECT hid, wb, usual FROM rate_full;
