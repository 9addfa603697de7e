-- Client joins by request ID, else by response ID: a client record's
-- request ID when a gateway or server record has that key (pri 1), else
-- its response ID's request ID when one has that (pri 2).
-- Each step reads join_keys once (read more often in one statement, DuckDB
-- would hold the union in memory). client_miss holds the records whose
-- request ID is no key (few where the tiers join), client_resp those of
-- them whose response ID's request ID is one: every other record is a
-- pri 1 hit, so client_id joins only these small tables to the records.
--
-- reads: client_n, join_keys
-- writes: client_miss
CREATE OR REPLACE TEMP TABLE client_miss AS
WITH
-- A client's response_id mapped back to the request ID vLLM built it from
-- (the one definition of that rule in SQL; see docs/attribution.md).
client_m AS (
    SELECT rid, request_id,
           CASE WHEN starts_with(response_id, 'chatcmpl-') AND response_id <> 'chatcmpl-'
                    THEN substr(response_id, 10)
                WHEN regexp_matches(response_id, '(?s)^cmpl-.+-[0-9]+$')
                    THEN regexp_extract(response_id, '(?s)^cmpl-(.+)-[0-9]+$', 1)
                WHEN starts_with(response_id, 'cmpl-') AND response_id <> 'cmpl-'
                    THEN substr(response_id, 6)
                ELSE response_id END AS response_request_id
    FROM client_n
)
SELECT m.rid, m.response_request_id
FROM client_m AS m ANTI JOIN join_keys AS k ON k.key = m.request_id;
