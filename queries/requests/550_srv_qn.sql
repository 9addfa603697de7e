-- The ranks each quantile needs (floor(pos) + 1 and ceil(pos) + 1, pos =
-- (n - 1) q), each in its bucket, with its rank there (local).
--
-- reads: srv_qb
-- writes: srv_qn
CREATE OR REPLACE TEMP TABLE srv_qn AS
SELECT r.kind, r.grp, r.metric, r.n, r.q, r.r, b.b, r.r - b.below AS local, b.lo, b.hi
FROM (SELECT t.kind, t.grp, t.metric, t.n, q.q,
             unnest([floor((t.n - 1) * q.q) + 1, ceil((t.n - 1) * q.q) + 1])::BIGINT AS r
      FROM (SELECT kind, grp, metric, any_value(total) AS n FROM srv_qb GROUP BY ALL) AS t
      JOIN (VALUES (0, 'tpot', 0.25::DOUBLE), (1, 'tpot', 0.25::DOUBLE), (2, 'tpot', 0.5::DOUBLE),
                   (0, 'pf', 0.9::DOUBLE), (1, 'pf', 0.9::DOUBLE), (0, 'work', 0.5::DOUBLE),
                   (1, 'work', 0.5::DOUBLE), (0, 'ld', 0.5::DOUBLE), (1, 'ld', 0.5::DOUBLE))
           AS q(kind, metric, q) USING (kind, metric)) AS r
JOIN srv_qb AS b ON b.kind = r.kind AND b.grp = r.grp AND b.metric = r.metric
                AND r.r > b.below AND r.r <= b.below + b.n;
