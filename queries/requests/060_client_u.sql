-- client_u: the client tier's step tier_u (tier.sql.tmpl).
--
-- reads: client_drop, client_h
-- writes: client_u
{{template "tier_u" (dict "T" "client")}};
