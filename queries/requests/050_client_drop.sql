-- client_drop: the client tier's step tier_drop (tier.sql.tmpl).
--
-- reads: client_dup, client_h, client_r
-- writes: client_drop
{{template "tier_drop" (dict "T" "client")}};
