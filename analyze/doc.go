// Package analyze owns the analysis half of infertrace. It opens an
// in-process DuckDB over the typed Parquet that ingest writes and
//
//   - Run: joins the client, gateway and server tiers into
//     DIR/requests.parquet (the steps of queries/requests/): by request ID, else a
//     client's response ID mapped back to the request ID vLLM built it
//     from, else by trace ID where each tier's records of a trace pair up;
//     a record that joins nothing is a request of its own, never merged
//     with other ID-less records. One row per request with
//     its latency attributed to network, application, queue and model, and
//     server time split further into prefill, decode and server overhead
//     where the server logged them. Server measures come from the record's
//     own instants, else from the durations the server logged, always on
//     the server host's clock. Rows of formats without a request ID (TGI,
//     Ollama's final JSON objects) are first matched one-to-one to gateway
//     records by time, after the offset between the two hosts' clocks is
//     estimated from the logs
//     (queries/match_candidates.sql, tgi_rows.sql, tgi_round.sql,
//     server_matched.sql); gateway records without a request ID (Kong
//     before 3.5, NGINX formats without $request_id) are matched the same
//     way to server records, only where the pair is unambiguous
//     (noid_servers.sql, noid_gateways.sql, gateway_matched.sql);
//     vLLM text-log rows are annotations only and never timed;
//   - Partitions: plans the windows (RunWindow) by which a store can be
//     analyzed piece by piece with the rows of the whole analysis, cut
//     between sessions (docs/partitions.md); WriteFacts, WriteYardsticks
//     and RunWindowFacts analyze windows cut anywhere, inside a session
//     too, each judging its bursts with the other windows' arrivals and its
//     replicas' warm-up with the whole store's yardsticks (the other
//     session rules not yet);
//   - Summarize: reads requests.parquet, manifest.json, rejects.jsonl and
//     the server tier's format column into
//     a plain Result (coverage, the join rate of each pair of tiers by join
//     method, the records per tier and format that joined nothing,
//     rejects, anomalies, percentiles and
//     attribution per slice, slowest requests, cold/burst/steady phases side
//     by side, per-replica figures, a time series per window, and what each
//     server format present gave and how it joined) that the
//     report package renders without SQL.
//
// Each request's phase (cold, burst or steady) and concurrency are derived
// in queries/requests/ from the logs alone, each decision on one host's clock;
// the simulator's truth labels are only for checking them.
//
// Every computation over rows lives in the SQL files of the queries package;
// the Go side opens DuckDB, registers views, runs queries and scans results,
// and carries the measurement protocol (Protocol),
// the one description of how each metric is measured, and the static list
// of what each server format can give (Capabilities). Go's only loop over
// SQL is the rounds of the one-to-one TGI matching. It returns figures, not
// sentences: the headlines and findings a report says of them are made by
// report (report.Say). It never imports ingest or report.
package analyze
