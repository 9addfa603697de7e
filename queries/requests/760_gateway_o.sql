-- gateway_o: each request's kept gateway record, in req_o's order (see
-- client_o).
--
-- reads: gateway, req_o
-- writes: gateway_o
CREATE OR REPLACE TEMP TABLE gateway_o AS
SELECT o.ord AS g_ord, g.start_time, g.upstream_start_time, g.upstream_first_byte_time, g.upstream_end_time,
       g.end_time, g.status, g.response_flags, g.gateway, g.route, g.format, g.ttft_ns,
       gateway_file(g.source_file, g.rid) AS source_file, g.source_line
FROM req_o AS o LEFT JOIN gateway AS g ON g.rid = o.g_rid
ORDER BY o.ord;
