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
-- (response_request_id of queries/macros.sql; see docs/attribution.md).
client_m AS (
    SELECT rid, request_id, response_request_id(response_id) AS response_request_id
    FROM client_n
)
SELECT m.rid, m.response_request_id
FROM client_m AS m ANTI JOIN join_keys AS k ON k.key = m.request_id;
