-- arr_host: each host-session (tier, host, session) numbered hid, with its
-- arrivals (host_n) and its first and last arrival.
--
-- reads: arr_s
-- writes: arr_host
CREATE OR REPLACE TEMP TABLE arr_host AS
SELECT tier, host, sid, count(*) AS host_n,
       epoch_ns(min(t)) AS first_ns, epoch_ns(max(t)) AS last_ns,
       row_number() OVER (ORDER BY tier, host, sid) AS hid
FROM arr_s
GROUP BY tier, host, sid;
