-- gateway_win: the gateway tier's step tier_win (tier.sql.tmpl).
--
-- reads: gateway_j, gateway_multi
-- writes: gateway_win
{{template "tier_win" (dict "T" "gateway" "In" "gateway_j" "Start" "start_time")}};
