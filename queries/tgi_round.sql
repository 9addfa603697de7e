-- tgi_round.sql: one round of the one-to-one matching of TGI rows to gateway
-- records over the match_cand table (match_candidates.sql) into tgi_match.
-- Among candidates whose TGI row and gateway record are both still
-- unmatched, a pair is taken when each is the other's best (lowest score,
-- ties by t_key then g_key, the gateway record's request ID: one total order). analyze repeats the
-- round until it takes no pair. The globally best remaining pair is always
-- mutual best, so every round takes at least one while candidates remain,
-- and the result is the greedy matching by score: best pair first, never a
-- gateway record twice, never a TGI row twice.
INSERT INTO tgi_match
SELECT t_key, g_key, score, n_cand
FROM (
    SELECT c.*,
           row_number() OVER (PARTITION BY t_key ORDER BY score, g_key) AS rank_t,
           row_number() OVER (PARTITION BY g_key ORDER BY score, t_key) AS rank_g
    FROM match_cand AS c
    WHERE c.t_key NOT IN (SELECT t_key FROM tgi_match)
      AND c.g_key NOT IN (SELECT request_id FROM tgi_match)
)
WHERE rank_t = 1 AND rank_g = 1
