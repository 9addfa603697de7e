-- burst: local arrival rate on one host's clock against that host's usual
-- rate around it, within one session.
-- Each host's arrivals in one session (a host-session, numbered hid) in
-- order (t, request_id), numbered rn; the 31-arrival frame around one runs
-- from row max(rn - 15, 1) to min(rn + 15, host_n), so its first and last
-- times are those 15 rows back and ahead, else the host-session's first
-- and last. The other windows' arrivals near this one (fact_arr, none in a
-- whole pass) stand among them, with a negative rq.
--
-- reads: arrivals, sess
-- writes: arr_s
CREATE OR REPLACE TEMP VIEW arr_s AS
SELECT a.*, s.sid
FROM (SELECT rq, request_id, pref, tier, host, t FROM arrivals
      UNION ALL
      SELECT rq, request_id, pref, tier, host, t FROM fact_arr()) AS a
JOIN sess AS s ON s.m = epoch_ns(a.t) // 60000000000;
