-- server_matched.sql: the server view queries/requests reads: server_logged (the
-- server tier as ingested) with each TGI or Ollama (ollama-json) row that
-- tgi_round.sql matched to a gateway record given that record's
-- request_id, joined_by = 'time' and match_candidates (how many gateway
-- records were within the tolerance).
-- Every other row is unchanged. The TGI key is the one of
-- tgi_rows.sql, so exact duplicates of a matched line get the same ID
-- and collapse in queries/requests.
WITH keyed AS (
    SELECT *,
           CASE WHEN format IN ('tgi', 'ollama-json') AND request_id IS NULL
                THEN hash(end_time, e2e_ns, queue_ns, inference_ns, arrival_time, scheduled_time,
                          output_tokens, error, replica, model) END AS t_key
    FROM server_logged
)
SELECT s.* EXCLUDE (t_key) REPLACE (
           coalesce(s.request_id, m.request_id) AS request_id,
           CASE WHEN m.request_id IS NOT NULL THEN 'time' ELSE s.joined_by END AS joined_by,
           coalesce(m.n_cand::INTEGER, s.match_candidates) AS match_candidates)
FROM keyed AS s
LEFT JOIN tgi_match AS m ON m.t_key = s.t_key
