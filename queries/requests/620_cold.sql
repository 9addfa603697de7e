-- cold: the server records of a replica lifetime's warm-up: it began slow,
-- and they arrived before its first record that is not.
--
-- reads: srv_slow, warmup
-- writes: cold
CREATE OR REPLACE TEMP TABLE cold AS
SELECT s.rq
FROM srv_slow AS s JOIN warmup AS w USING (rl)
WHERE w.first_slow AND (w.warm_from IS NULL OR s.a_ns < w.warm_from);
