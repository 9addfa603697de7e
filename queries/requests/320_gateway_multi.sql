-- gateway_multi: the gateway tier's step tier_multi (tier.sql.tmpl).
--
-- reads: gateway_j
-- writes: gateway_multi
{{template "tier_multi" (dict "T" "gateway" "In" "gateway_j" "Start" "start_time")}};
