-- server_h: the server tier's step tier_h (tier.sql.tmpl).
--
-- reads: server_files, server_r
-- writes: server_h
{{template "tier_h" (dict "T" "server" "HCols" `r.request_id, r.trace_id, r.arrival_time, r.scheduled_time, r.first_token_time, r.end_time,
           r.replica, r.model, r.output_tokens, r.queue_ns, r.prefill_ns, r.decode_ns, r.inference_ns, r.load_ns`)}};
