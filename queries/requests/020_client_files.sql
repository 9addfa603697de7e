-- client_files: the client tier's step tier_files (tier.sql.tmpl).
--
-- reads: client
-- writes: client_files
{{template "tier_files" (dict "T" "client")}};
