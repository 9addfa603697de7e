-- evals_joined.sql: how the eval rows joined the requests by request_id:
-- rows, distinct request IDs, and those matching no request (with up to
-- three examples), so an eval file of another run is noticed.
SELECT
    count(*)                                                  AS rows,
    count(DISTINCT e.request_id)                              AS requests,
    count(DISTINCT CASE WHEN r.request_id IS NULL THEN e.request_id END) AS unmatched,
    list_sort(list(DISTINCT e.request_id) FILTER (WHERE r.request_id IS NULL))[1:3] AS unmatched_examples
FROM evals AS e
LEFT JOIN (SELECT DISTINCT request_id FROM requests) AS r ON r.request_id = e.request_id
