-- Queue busy periods of each replica, on its clock: a request opens a new
-- one when every earlier arrival had left the queue (arrival + queue <= its
-- arrival); later arrivals of the period waited behind the earlier ones.
-- g numbers each replica's server records in order (arrival, request_id);
-- opens compares the arrival with the latest queue exit of the replica's
-- rows before it (both from one sort: the same partition and order). The
-- record's concurrency is carried on for srv_flags.
--
-- reads: srv_p
-- writes: srv_g
CREATE OR REPLACE TEMP TABLE srv_g AS
SELECT p.rq, p.replica, p.concurrency,
       row_number() OVER (PARTITION BY p.replica ORDER BY p.a_ns, p.request_id) AS g,
       NOT coalesce(p.a_ns < max(p.a_ns + p.q_ns) OVER (
           PARTITION BY p.replica ORDER BY p.a_ns, p.request_id
           ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS opens
FROM srv_p AS p;
