-- warmup: per replica lifetime, whether its first judged record is slow
-- (first_slow) and when its first judged record that is not slow arrived
-- (warm_from).
--
-- reads: srv_slow
-- writes: warmup
CREATE OR REPLACE TEMP TABLE warmup AS
SELECT rl,
       arg_min(slow, {'a': a_ns, 'id': request_id}) FILTER (WHERE judged) AS first_slow,
       min(a_ns) FILTER (WHERE judged AND NOT slow) AS warm_from
FROM srv_slow
GROUP BY rl;
