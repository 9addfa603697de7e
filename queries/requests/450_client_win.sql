-- client_win: the client tier's step tier_win (tier.sql.tmpl).
--
-- reads: client_j, client_multi
-- writes: client_win
{{template "tier_win" (dict "T" "client" "In" "client_j" "Start" "start_time")}};
