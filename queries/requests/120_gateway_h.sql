-- gateway_h: the gateway tier's step tier_h (tier.sql.tmpl).
--
-- reads: gateway_files, gateway_r
-- writes: gateway_h
{{template "tier_h" (dict "T" "gateway" "HCols" "r.request_id, r.trace_id, r.start_time, r.end_time, r.gateway, r.joined_by = 'time' AS by_time")}};
