-- gateway_u: the gateway tier's step tier_u (tier.sql.tmpl).
--
-- reads: gateway_drop, gateway_h
-- writes: gateway_u
{{template "tier_u" (dict "T" "gateway")}};
