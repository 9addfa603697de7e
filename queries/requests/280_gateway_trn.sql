-- Trace matching (see docs/attribution.md): within each trace, the records of each
-- tier that did not join the other tier by ID, numbered by start on that
-- tier's own clock. A gateway record's trace match decides its key only
-- when it has no request ID, so only the traces that hold such a record
-- are numbered (whole traces: the numbers are those of all the trace's
-- records).
--
-- reads: gateway_n
-- writes: gateway_trn
CREATE OR REPLACE TEMP TABLE gateway_trn AS
SELECT DISTINCT trace_id FROM gateway_n WHERE request_id IS NULL AND trace_id IS NOT NULL;
