-- The request at each tied position in the order (t, request_id): of the
-- arrivals of one host at one t, the k-th by request ID stands at the k-th
-- of their positions (the other windows' arrivals, fact_arr, with their
-- own request IDs).
--
-- reads: local_rate, req
-- writes: local_tie
CREATE OR REPLACE TEMP TABLE local_tie AS
SELECT p.hid, p.rn, r.rq
FROM (SELECT hid, tie_t, rn, row_number() OVER (PARTITION BY hid, tie_t ORDER BY rn) AS k
      FROM local_rate WHERE tie_t IS NOT NULL) AS p
JOIN (SELECT l.hid, l.tie_t, l.rq, row_number() OVER (PARTITION BY l.hid, l.tie_t ORDER BY q.request_id) AS k
      FROM local_rate AS l
      JOIN (SELECT rq, request_id FROM req UNION ALL SELECT rq, request_id FROM fact_arr()) AS q ON q.rq = l.rq
      WHERE l.tie_t IS NOT NULL) AS r
  ON r.hid = p.hid AND r.tie_t = p.tie_t AND r.k = p.k;
