-- Each replica lifetime's server records per model and session, counted
-- (and those that log a queue).
--
-- reads: srv_p
-- writes: srv_rep
CREATE OR REPLACE TEMP TABLE srv_rep AS
SELECT rl, ms, count(*) AS n, count(q_ns) AS n_queue FROM srv_p GROUP BY rl, ms;
