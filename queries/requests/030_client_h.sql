-- client_h: the client tier's step tier_h (tier.sql.tmpl).
--
-- reads: client_files, client_r
-- writes: client_h
{{template "tier_h" (dict "T" "client" "HCols" "r.request_id, r.response_id, r.trace_id, r.start_time, r.end_time, r.client")}};
