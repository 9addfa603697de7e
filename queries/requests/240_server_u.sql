-- server_u: the server tier's step tier_u (tier.sql.tmpl).
--
-- reads: server_drop, server_h
-- writes: server_u
{{template "tier_u" (dict "T" "server")}};
