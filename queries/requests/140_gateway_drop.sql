-- gateway_drop: the gateway tier's step tier_drop (tier.sql.tmpl).
--
-- reads: gateway_dup, gateway_h, gateway_r
-- writes: gateway_drop
{{template "tier_drop" (dict "T" "gateway")}};
