-- gateway_dup: the gateway tier's step tier_dup (tier.sql.tmpl).
--
-- reads: gateway_h
-- writes: gateway_dup
{{template "tier_dup" (dict "T" "gateway")}};
