-- server_dup: the server tier's step tier_dup (tier.sql.tmpl).
--
-- reads: server_h
-- writes: server_dup
{{template "tier_dup" (dict "T" "server")}};
