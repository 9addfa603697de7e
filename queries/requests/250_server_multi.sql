-- server_multi: the server tier's step tier_multi (tier.sql.tmpl).
--
-- reads: server_u
-- writes: server_multi
{{template "tier_multi" (dict "T" "server" "In" "server_u" "Start" "arrival_time")}};
