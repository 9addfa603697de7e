-- Trace matching of the client records that joined nothing by ID: they are
-- numbered within their trace, and so are the kept gateway records of
-- those traces, and the kept server records of those traces that the
-- gateway did not log (whole traces: the numbers are those of all the
-- trace's records on that tier), each but the records a client joined by
-- ID (client_hit: only the keys of those gateway and server records are
-- looked for, once).
--
-- reads: client_id
-- writes: client_tr
CREATE OR REPLACE TEMP TABLE client_tr AS
SELECT rid, trace_id,
       row_number() OVER (PARTITION BY trace_id ORDER BY start_time NULLS LAST, {'file': fid, 'line': line},
                                                         {'file': fid, 'line': line, 'n': n}) AS rk,
       count(*) OVER (PARTITION BY trace_id) AS n_tr
FROM client_id
WHERE trace_id IS NOT NULL AND id_key IS NULL;
