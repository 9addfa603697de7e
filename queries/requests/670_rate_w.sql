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
--
-- reads: local_rate
-- writes: rate_w
CREATE OR REPLACE TEMP TABLE rate_w AS
SELECT hid, bk, rate, gap_ns, floor(log2(rate) * 1024)::BIGINT AS bin
FROM local_rate WHERE host_n >= 31 AND rate IS NOT NULL;
