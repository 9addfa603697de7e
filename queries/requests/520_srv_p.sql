-- Each server record with its replica's lifetime and session: rl keys the
-- replica and the lifetime (a new one after more than 10 minutes without
-- an arrival on the replica, on its clock), ms the model and the session,
-- msc the model, the session and the concurrency bucket (as
-- concurrency_bucket); the warm-up's yardsticks are taken per rl, ms and
-- msc. replica numbers the replica; concurrency is srv_a's. The keys are integers, compared for
-- equality only and never output, so that no string is built per record:
-- rl = replica * 2^32 + the lifetime's number (from 1 at the replica's
-- first arrival in the store, in arrival order), ms = model * 2^32 + sid,
-- msc = ms * 8 + the bucket (1 to 5); each NULL where its replica or model
-- is. Replicas (their names, server_replica) and models are numbered in
-- the order of their names, the store's first (fact_replica, fact_model:
-- those of the yardsticks' records, none in a whole pass), so that rl, ms
-- and msc are the same in every window's analysis and in the yardsticks'
-- (facts.go), and a name a window reads that the store's records have not
-- (none should) changes no other's number.
--
-- reads: srv_a
-- writes: srv_p
CREATE OR REPLACE TEMP TABLE srv_p AS
WITH
-- The replicas and the models, numbered.
reps AS (
    SELECT replica, row_number() OVER (ORDER BY bool_and(own), replica) AS rep
    FROM (SELECT DISTINCT replica, true AS own FROM srv_a WHERE replica IS NOT NULL
          UNION ALL SELECT replica, false FROM fact_replica())
    GROUP BY replica
),
models AS (
    SELECT model, row_number() OVER (ORDER BY bool_and(own), model) AS mdl
    FROM (SELECT DISTINCT model, true AS own FROM srv_a WHERE model IS NOT NULL
          UNION ALL SELECT model, false FROM fact_model())
    GROUP BY model
),
-- The lifetimes, found on each replica's minutes (epoch_ns // 60e9) with
-- an arrival, a few thousand rows a day rather than one per record: the
-- gap before a record is more than 10 minutes only where it is the first
-- of its minute (arrivals within a minute are less than a minute apart)
-- and the replica's previous minute with an arrival ended more than 10
-- minutes before it. A lifetime's number is the running count of such
-- minutes. The other windows' minutes of the replica (fact_rep, none in a
-- whole pass) count alike, so that a window cut inside a lifetime, or after
-- a pause, numbers and bounds the lifetimes as the whole store does (a
-- minute read by two windows gives the same first and last in both).
lt AS (
    SELECT replica, m, sum(brk) OVER (PARTITION BY replica ORDER BY m ROWS UNBOUNDED PRECEDING)::BIGINT AS life
    FROM (SELECT replica, m,
                 CASE WHEN first_ns - lag(last_ns) OVER (PARTITION BY replica ORDER BY m) <= 600000000000 THEN 0
                      ELSE 1 END AS brk
          FROM (SELECT replica, m, min(first_ns) AS first_ns, max(last_ns) AS last_ns
                FROM (SELECT replica, a_ns // 60000000000 AS m, min(a_ns) AS first_ns, max(a_ns) AS last_ns
                      FROM srv_a WHERE replica IS NOT NULL GROUP BY ALL
                      UNION ALL
                      SELECT replica, m, first_ns, last_ns FROM fact_rep())
                GROUP BY ALL))
)
SELECT p.rq, p.request_id, r.rep AS replica, p.a_ns, p.q_ns, p.ld_ns, p.tpot_ns, p.pf_ns, p.work_ns, p.concurrency,
       r.rep * 4294967296 + l.life AS rl,
       md.mdl * 4294967296 + p.sid::BIGINT AS ms,
       (md.mdl * 4294967296 + p.sid::BIGINT) * 8
           + CASE WHEN p.concurrency <= 1 THEN 1 WHEN p.concurrency <= 4 THEN 2 WHEN p.concurrency <= 8 THEN 3
                  WHEN p.concurrency <= 16 THEN 4 ELSE 5 END AS msc
FROM srv_a AS p
LEFT JOIN reps AS r ON r.replica = p.replica
LEFT JOIN models AS md ON md.model = p.model
LEFT JOIN lt AS l ON l.replica = p.replica AND l.m = p.a_ns // 60000000000;
