-- client_n: the client tier's step tier_n (tier.sql.tmpl).
--
-- reads: client_refn, client_u
-- writes: client_n
{{template "tier_n" (dict "T" "client")}};
