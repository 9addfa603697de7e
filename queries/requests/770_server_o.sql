-- server_o: each request's kept server record, in req_o's order (see
-- client_o).
--
-- reads: req_o, server
-- writes: server_o
CREATE OR REPLACE TEMP TABLE server_o AS
SELECT o.ord AS s_ord, s.arrival_time, s.scheduled_time, s.first_token_time, s.end_time, s.model, s.status,
       s.prompt_tokens, s.output_tokens, s.replica, s.finish_reason, s.error, s.format, s.joined_by,
       s.match_candidates, s.e2e_ns, s.queue_ns, s.ttft_ns, s.prefill_ns, s.decode_ns, s.inference_ns,
       s.load_ns, server_file(s.source_file, s.rid) AS source_file, s.source_line
FROM req_o AS o LEFT JOIN server AS s ON s.rid = o.s_rid
ORDER BY o.ord;
