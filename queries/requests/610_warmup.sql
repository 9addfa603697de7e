-- warmup: per replica lifetime, whether its first judged record is slow
-- (first_slow) and when its first judged record that is not slow arrived
-- (warm_from). A lifetime's that the yardsticks of the whole store give
-- (fact_warm, none in a whole pass; docs/partitions.md) is theirs instead:
-- its first records may lie in another window.
--
-- reads: srv_slow
-- writes: warmup
CREATE OR REPLACE TEMP TABLE warmup AS
SELECT rl,
       arg_min(slow, {'a': a_ns, 'id': request_id}) FILTER (WHERE judged) AS first_slow,
       min(a_ns) FILTER (WHERE judged AND NOT slow) AS warm_from
FROM srv_slow
GROUP BY rl
HAVING rl NOT IN (SELECT rl FROM fact_warm())
UNION ALL
SELECT rl, first_slow, warm_from FROM fact_warm();
