-- Each tier's kept record of every request, picked up by its row id (a
-- NULL row where the request has none), in the same order: j lines the
-- four tables up by position, so the rows are never joined wide nor sorted
-- whole.
--
-- reads: client, req_o
-- writes: client_o
CREATE OR REPLACE TEMP TABLE client_o AS
SELECT o.ord AS c_ord, c.start_time, c.first_token_time, c.end_time, c.model, c.use_case, c.streamed,
       c.status, c.error, c.prompt_tokens, c.output_tokens, c.client, c.region, c.format,
       c.e2e_ns, c.ttft_ns, client_file(c.source_file, c.rid) AS source_file, c.source_line
FROM req_o AS o LEFT JOIN client AS c ON c.rid = o.c_rid
ORDER BY o.ord;
