-- server_files: the server tier's step tier_files (tier.sql.tmpl).
--
-- reads: server
-- writes: server_files
{{template "tier_files" (dict "T" "server")}};
