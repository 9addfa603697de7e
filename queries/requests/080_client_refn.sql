-- client_refn: the client tier's step tier_refn (tier.sql.tmpl).
--
-- reads: client_r, client_shared, client_u
-- writes: client_refn
{{template "tier_refn" (dict "T" "client")}};
