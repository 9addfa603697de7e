-- gateway_files: the gateway tier's step tier_files (tier.sql.tmpl).
--
-- reads: gateway
-- writes: gateway_files
{{template "tier_files" (dict "T" "gateway")}};
