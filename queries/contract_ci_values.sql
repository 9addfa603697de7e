-- contract_ci_values.sql: the pct_values input of pct_ci.sql for the
-- medians of contract_goodput.sql: each member's components (the TTFT
-- ones of streamed requests only), in its use case and slice's group of
-- contract_ci_groups.
UNPIVOT (
    SELECT g.gid,
        m.network_ms::DOUBLE AS network,
        m.application_ms::DOUBLE AS application,
        m.queue_ms::DOUBLE AS queue,
        m.model_ms::DOUBLE AS model,
        m.prefill_ms::DOUBLE AS prefill,
        m.decode_ms::DOUBLE AS decode,
        (CASE WHEN m.streamed IS TRUE THEN m.ttft_network_ms END)::DOUBLE AS ttft_network,
        (CASE WHEN m.streamed IS TRUE THEN m.ttft_application_ms END)::DOUBLE AS ttft_application,
        (CASE WHEN m.streamed IS TRUE THEN m.ttft_queue_ms END)::DOUBLE AS ttft_queue,
        (CASE WHEN m.streamed IS TRUE THEN m.ttft_model_ms END)::DOUBLE AS ttft_model
    FROM contract_members AS m
    JOIN contract_ci_groups AS g ON g.case_id = m.case_id AND g.slice_key = m.slice_key
) ON COLUMNS(* EXCLUDE (gid)) INTO NAME metric VALUE value
