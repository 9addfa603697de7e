-- server_win: the server tier's step tier_win (tier.sql.tmpl).
--
-- reads: server_multi, server_u
-- writes: server_win
{{template "tier_win" (dict "T" "server" "In" "server_u" "Start" "arrival_time")}};
