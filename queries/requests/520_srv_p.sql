-- Each server record with its session and its replica's lifetime: rl
-- names the replica and the lifetime (a new one after more than 10
-- minutes without an arrival on the replica, on its clock), ms the model
-- and the session, msc the model, the session and the concurrency bucket
-- (as concurrency_bucket); the warm-up's yardsticks are taken per rl, ms
-- and msc.
--
-- reads: conc, server_k, sess
-- writes: srv_p
CREATE OR REPLACE TEMP TABLE srv_p AS
WITH
-- A replica is its label, else (formats that name none: Ollama, TGI) the
-- log file.
srv_p0 AS (
    SELECT rid AS rq, request_id, coalesce(replica, 'file ' || fid) AS replica, model,
           epoch_ns(arrival_time) AS a_ns,
           coalesce(epoch_ns(scheduled_time) - epoch_ns(arrival_time), queue_ns) AS q_ns,
           load_ns AS ld_ns,
           CASE WHEN output_tokens > 1
                THEN coalesce(epoch_ns(end_time) - epoch_ns(first_token_time), decode_ns) / (output_tokens - 1)
           END AS tpot_ns,
           coalesce(prefill_ns, epoch_ns(first_token_time) - epoch_ns(scheduled_time)) AS pf_ns,
           coalesce(epoch_ns(end_time) - epoch_ns(scheduled_time), prefill_ns + decode_ns, inference_ns) AS work_ns
    FROM server_k
    WHERE arrival_time IS NOT NULL
)
SELECT * EXCLUDE (brk, concurrency),
       replica || chr(31) || sum(brk) OVER (PARTITION BY replica ORDER BY a_ns, request_id
                                            ROWS UNBOUNDED PRECEDING)::VARCHAR AS rl,
       model || chr(31) || sid::VARCHAR AS ms,
       model || chr(31) || sid::VARCHAR || chr(31)
           || CASE WHEN concurrency <= 1 THEN '1' WHEN concurrency <= 4 THEN '2-4' WHEN concurrency <= 8 THEN '5-8'
                   WHEN concurrency <= 16 THEN '9-16' ELSE '17+' END AS msc
FROM (SELECT p.*, s.sid, c.concurrency,
             CASE WHEN p.a_ns - lag(p.a_ns) OVER (PARTITION BY p.replica ORDER BY p.a_ns, p.request_id)
                       <= 600000000000 THEN 0 ELSE 1 END AS brk
      FROM srv_p0 AS p JOIN sess AS s ON s.m = p.a_ns // 60000000000
      LEFT JOIN conc AS c ON c.rq = p.rq);
