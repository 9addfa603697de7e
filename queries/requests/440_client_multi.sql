-- client_multi: the client tier's step tier_multi (tier.sql.tmpl).
--
-- reads: client_j
-- writes: client_multi
{{template "tier_multi" (dict "T" "client" "In" "client_j" "Start" "start_time")}};
