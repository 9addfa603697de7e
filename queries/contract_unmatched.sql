-- contract_unmatched.sql: why a use case of the contract selects no
-- request, for analyze to say so (a typo in a contract is an error, not
-- a use case silently left out). Run only when contract_members has no
-- request of some case; over the same sliced view and the same text of
-- each slice column as contract_members.sql (streamed 'true', status
-- '200'; NULL is no value).
-- One row per match condition (case_id, col, value) of each such case:
--   occurs:  whether some request has that value in that column;
--   present: the values the column holds, sorted; NULL when it holds none.
-- A case with no match condition (it takes every request: the run has
-- none) gives one row with col NULL.
WITH empty AS (
    SELECT case_id FROM contract_cases
    WHERE case_id NOT IN (SELECT DISTINCT case_id FROM contract_members)
),
wanted AS (
    SELECT e.case_id, x.col, x.value
    FROM empty AS e
    LEFT JOIN contract_match AS x ON x.case_id = e.case_id
),
present AS (
    SELECT col, list(DISTINCT value ORDER BY value) AS present
    FROM (
        UNPIVOT (
            SELECT CAST(model AS VARCHAR) AS model, CAST(use_case AS VARCHAR) AS use_case,
                CAST(streamed AS VARCHAR) AS streamed, CAST(client AS VARCHAR) AS client,
                CAST(region AS VARCHAR) AS region, CAST(gateway AS VARCHAR) AS gateway,
                CAST(route AS VARCHAR) AS route, CAST(replica AS VARCHAR) AS replica,
                CAST(status AS VARCHAR) AS status, CAST(finish_reason AS VARCHAR) AS finish_reason,
                CAST(phase AS VARCHAR) AS phase, CAST(concurrency_bucket AS VARCHAR) AS concurrency_bucket,
                CAST(prompt_bucket AS VARCHAR) AS prompt_bucket, CAST(output_bucket AS VARCHAR) AS output_bucket
            FROM sliced
        ) ON COLUMNS(*) INTO NAME col VALUE value
    )
    WHERE col IN (SELECT col FROM wanted)
    GROUP BY col
)
SELECT w.case_id, w.col, w.value,
    coalesce(list_contains(p.present, w.value), false) AS occurs,
    p.present
FROM wanted AS w
LEFT JOIN present AS p ON p.col = w.col
ORDER BY w.case_id, w.col
