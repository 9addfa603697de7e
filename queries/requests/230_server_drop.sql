-- server_drop: the server tier's step tier_drop (tier.sql.tmpl).
--
-- reads: server_dup, server_h, server_r
-- writes: server_drop
{{template "tier_drop" (dict "T" "server")}};
