-- Each server record that has an arrival: the columns the warm-up and the
-- queue's busy periods read, with its session and its concurrency. A
-- replica is its label, else the log file's path (server_replica).
--
-- reads: conc, server_files, server_k, sess
-- writes: srv_a
CREATE OR REPLACE TEMP TABLE srv_a AS
SELECT p.*, s.sid, c.concurrency
FROM (SELECT k.rid AS rq, k.request_id, server_replica(k.replica, f.path) AS replica, k.model,
             epoch_ns(arrival_time) AS a_ns,
             coalesce(epoch_ns(scheduled_time) - epoch_ns(arrival_time), queue_ns) AS q_ns,
             load_ns AS ld_ns,
             CASE WHEN output_tokens > 1
                  THEN coalesce(epoch_ns(end_time) - epoch_ns(first_token_time), decode_ns) / (output_tokens - 1)
             END AS tpot_ns,
             coalesce(prefill_ns, epoch_ns(first_token_time) - epoch_ns(scheduled_time)) AS pf_ns,
             coalesce(epoch_ns(end_time) - epoch_ns(scheduled_time), prefill_ns + decode_ns, inference_ns) AS work_ns
      FROM server_k AS k LEFT JOIN server_files AS f ON f.fid = k.fid
      WHERE k.arrival_time IS NOT NULL) AS p
JOIN sess AS s ON s.m = p.a_ns // 60000000000
LEFT JOIN conc AS c ON c.rq = p.rq;
