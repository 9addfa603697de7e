-- client_shared: the client tier's step tier_shared (tier.sql.tmpl).
--
-- reads: client_u
-- writes: client_shared
{{template "tier_shared" (dict "T" "client")}};
