-- The output order: each request's position ord by (start, request_id),
-- start as the output step's j takes it (request IDs are unique, so the
-- order is total). The requests' own columns, flags and annotations, in
-- that order: sorted once, then numbered as they come (row_number() OVER
-- () is DuckDB's streaming window, which runs on one thread in its input's
-- order; a window ordered by the key would sort the rows a second time).
--
-- reads: burst, req, server, srv_flags
-- writes: req_o
CREATE OR REPLACE TEMP TABLE req_o AS
WITH
-- vLLM text-log annotations: per request ID, how many lines, and the
-- finish_reason and error of the latest line (by source) that has one.
annot AS (
    SELECT request_id,
           count(*) AS n_annotations,
           arg_max(finish_reason, {'file': source_file, 'line': source_line})
               FILTER (WHERE finish_reason IS NOT NULL) AS finish_reason,
           arg_max(error, {'file': source_file, 'line': source_line})
               FILTER (WHERE error IS NOT NULL) AS error
    FROM server
    WHERE request_id IS NOT NULL AND format = 'vllm-log'
    GROUP BY request_id
)
SELECT *, row_number() OVER () AS ord
FROM (SELECT i.request_id, i.c_rid, i.g_rid, i.s_rid, i.c_records, i.g_records, i.s_records, i.c_how, i.g_how,
             a.concurrency, a.cold, a.behind_cold, a.behind_burst, b.is_burst,
             an.n_annotations, an.finish_reason AS an_finish_reason, an.error AS an_error
      FROM req AS i
      LEFT JOIN srv_flags AS a ON a.rq = i.rq
      LEFT JOIN burst AS b ON b.rq = i.rq
      LEFT JOIN annot AS an ON an.request_id = i.request_id
      ORDER BY coalesce(i.c_start::TIMESTAMP_NS, i.g_start::TIMESTAMP_NS, i.arrival_time::TIMESTAMP_NS) NULLS LAST,
               i.request_id);
