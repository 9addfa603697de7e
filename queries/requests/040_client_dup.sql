-- client_dup: the client tier's step tier_dup (tier.sql.tmpl).
--
-- reads: client_h
-- writes: client_dup
{{template "tier_dup" (dict "T" "client")}};
