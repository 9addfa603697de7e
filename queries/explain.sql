-- explain.sql: one row per request to explain (the explain_ids table:
-- request_id, ord), in ord order: its labels and context at arrival, the
-- log lines behind it, and its tiers' times placed on its gateway's clock
-- for the waterfall.
--
-- Placement: every time is in ms after the request's gateway start, on
-- the gateway host's clock. A client or server time t is placed at
-- t - offset, the host's offset against that gateway (clock_offsets
-- table, clock_offsets.sql); NULL when the offset is unknown. Placed
-- times only draw the boxes: the components come from requests.parquet.
-- queue_depth = requests waiting in the replica's queue when this one
-- arrived: server records of the same replica (its own clock) that arrived
-- before it and were scheduled after its arrival; NULL without its
-- arrival and scheduled instants.
-- The not-split components (upstream_ms, network_application_ms,
-- unsplit_ms and their TTFT forms) and the gateway's and server's E2E are
-- there for the answer (explain/answer.go): the share of the request's time
-- its largest part took, never moving a missing tier's time elsewhere.
-- server_join: 'time' for a TGI record matched to the gateway's by time
-- (queries/requests): explain_records takes server records joined by ID
-- only, so such a record's host gets no offset and its boxes no place.
WITH
p AS (
    SELECT i.ord, r.*
    FROM explain_ids AS i JOIN requests AS r USING (request_id)
),
x AS (
    SELECT p.*, e.* EXCLUDE (request_id, client_records, gateway_records, server_records),
        oc.offset_ms AS client_offset_ms, oc.uncertainty_ms AS client_offset_uncertainty_ms,
        oc.n_lower + oc.n_upper AS client_offset_bounds,
        os.offset_ms AS server_offset_ms, os.uncertainty_ms AS server_offset_uncertainty_ms,
        os.n_lower + os.n_upper AS server_offset_bounds
    FROM p
    LEFT JOIN explain_records AS e USING (request_id)
    LEFT JOIN clock_offsets AS oc ON oc.tier = 'client' AND oc.host = e.client_host AND oc.gateway_host = e.gateway_host
        AND oc.minute = date_trunc('minute', e.g_start)
    LEFT JOIN clock_offsets AS os ON os.tier = 'server' AND os.host = e.server_host AND os.gateway_host = e.gateway_host
        AND os.minute = date_trunc('minute', e.g_start)
),
depth AS (
    SELECT x.request_id, count(q.arrival_time) AS queue_depth
    FROM x JOIN server_logged AS q
      ON q.replica = x.replica AND q.arrival_time < x.s_arrival AND q.scheduled_time > x.s_arrival
    WHERE x.s_arrival IS NOT NULL AND x.s_scheduled IS NOT NULL
    GROUP BY x.request_id
)
SELECT x.ord, x.request_id, x.start, x.model, x.use_case, x.client, x.region, x.gateway, x.replica,
    x.status, x.streamed, x.phase, x.concurrency, x.server_join,
    CASE WHEN x.s_arrival IS NOT NULL AND x.s_scheduled IS NOT NULL THEN coalesce(d.queue_depth, 0) END AS queue_depth,
    x.client_records, x.gateway_records, x.server_records,
    x.client_source, x.gateway_source, x.server_source, x.anomaly, x.aborted, x.wasted_ms,
    x.client_host, x.gateway_host, x.server_host,
    x.gateway_e2e_ms, x.server_e2e_ms, x.upstream_ms, x.network_application_ms, x.unsplit_ms,
    x.ttft_network_application_ms, x.ttft_unsplit_ms,
    x.client_offset_ms, x.client_offset_uncertainty_ms, x.client_offset_bounds,
    x.server_offset_ms, x.server_offset_uncertainty_ms, x.server_offset_bounds,
    (epoch_ns(x.g_up_start) - epoch_ns(x.g_start)) / 1e6 AS g_up_start_at,
    (epoch_ns(x.g_up_end) - epoch_ns(x.g_start)) / 1e6 AS g_up_end_at,
    (epoch_ns(x.g_end) - epoch_ns(x.g_start)) / 1e6 AS g_end_at,
    CASE WHEN x.g_start IS NOT NULL THEN 0.0::DOUBLE END AS g_start_at,
    (epoch_ns(x.c_start) - epoch_ns(x.g_start)) / 1e6 - x.client_offset_ms AS c_start_at,
    (epoch_ns(x.c_first) - epoch_ns(x.g_start)) / 1e6 - x.client_offset_ms AS c_first_at,
    (epoch_ns(x.c_end) - epoch_ns(x.g_start)) / 1e6 - x.client_offset_ms AS c_end_at,
    (epoch_ns(x.s_arrival) - epoch_ns(x.g_start)) / 1e6 - x.server_offset_ms AS s_arrival_at,
    (epoch_ns(x.s_scheduled) - epoch_ns(x.g_start)) / 1e6 - x.server_offset_ms AS s_scheduled_at,
    (epoch_ns(x.s_first) - epoch_ns(x.g_start)) / 1e6 - x.server_offset_ms AS s_first_at,
    (epoch_ns(x.s_end) - epoch_ns(x.g_start)) / 1e6 - x.server_offset_ms AS s_end_at
FROM x LEFT JOIN depth AS d USING (request_id)
ORDER BY x.ord
