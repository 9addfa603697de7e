-- gateway_n: the gateway tier's step tier_n (tier.sql.tmpl).
--
-- reads: gateway_refn, gateway_u
-- writes: gateway_n
{{template "tier_n" (dict "T" "gateway")}};
