-- gateway_shared: the gateway tier's step tier_shared (tier.sql.tmpl).
--
-- reads: gateway_u
-- writes: gateway_shared
{{template "tier_shared" (dict "T" "gateway")}};
