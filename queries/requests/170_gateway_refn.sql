-- gateway_refn: the gateway tier's step tier_refn (tier.sql.tmpl).
--
-- reads: gateway_r, gateway_shared, gateway_u
-- writes: gateway_refn
{{template "tier_refn" (dict "T" "gateway")}};
