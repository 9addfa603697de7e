// Package simulate generates a seeded, reproducible LLM serving stack and the
// logs each of its tiers would write, together with the ground truth of where
// every request's time went.
//
// The stack is a discrete-event simulation in true time:
//
//   - clients in several regions, each with its own request and response
//     network legs (drawn separately per request, with jitter), several use
//     cases with log-normal prompt and output token lengths, streamed and
//     non-streamed requests, several models;
//   - a Poisson arrival process with one burst well above capacity and one
//     replica that joins late and serves its first requests slowly (cold
//     start);
//   - a gateway tier with a small jittered processing time, an occasional
//     slow auth path, a network hop to the servers and an optional per-host
//     rate limit that rejects with 429;
//   - incidents to inject on top, for infertrace compare: a fixed extra
//     network delay on both legs of one region's clients
//     (Config.RegionDelay) and a slower gateway auth path taken by a chosen
//     share of requests (Config.SlowAuthRate, Config.SlowAuthExtra);
//   - inference replicas with continuous batching: a bounded running batch, a
//     FIFO waiting queue, prefill time growing with prompt length and decode
//     time per token growing with the running batch size.
//
// Every host writes times on its own clock (a fixed offset of up to
// Config.MaxClockOffset plus a drift within ±Config.MaxDriftPPM/2), some as
// RFC 3339 strings with microsecond precision (in UTC or +01:00) and some as
// Unix epoch seconds with six decimals. Records are written when they
// complete, so each file is in completion order.
//
// Imperfections are injected at configurable rates and counted: a tier's
// record lost, a line truncated mid-write, a line shipped twice, server 5xx
// errors, client timeouts and client cancels, and gateway 429s when the rate
// limit is on.
//
// Output layout under Config.Out:
//
//	client/<client-host>.jsonl    one record per request sent from that host
//	gateway/<gateway-host>.jsonl  one record per request through that gateway
//	server/<replica>.jsonl        one record per request served (one replica's
//	                              file is gzipped as .jsonl.gz when
//	                              Config.GzipOneServer is set)
//	truth.parquet, truth.csv      one row per request, in completion order
//	clocks.csv                    each host's true offset, drift and format
//
// Config.Formats can have replicas write the formats of real inference
// servers instead of native (vllm-otlp, tgi, triton, sglang-metrics,
// trtllm: see servers.go), per replica, cycling through a list or pinned
// by replica name. Such a replica writes server/<replica>.<format>.jsonl
// (.json for the array formats triton and trtllm), and server_lines.csv
// names the request behind each of their intact records. Nothing else
// changes: the same seed gives the same simulation, truth and client and
// gateway logs whatever the server formats.
//
// Gateways and clients can likewise write real systems' formats (see
// edges.go): gateways envoy (Envoy's default text format, integer ms),
// envoy-json (a typed json_format with µs timing points), nginx (an
// escape=json log_format, seconds with ms resolution, some requests with
// two upstream attempts) or otel-gateway (OTLP SERVER and CLIENT spans, as
// the collector's file exporter writes them); clients aiperf
// (profile_export.jsonl) or jsonl (an application's log, with the mapping
// Out/client.toml for ingest --map). Config.Formats takes "gateway=nginx",
// "client=aiperf" or a host pin such as "gw-1=envoy"; the simulation and
// every other file stay the same.
//
// Record fields (times on the writing host's clock):
//
//	client:  request_id, start, first_token (streamed requests that received
//	         one), end, status (0 cancel, 408 timeout), error ("timeout",
//	         "canceled", "server_error", "rate_limited"; absent when none),
//	         streamed, model, use_case, client, region, prompt_tokens,
//	         output_tokens (received)
//	gateway: request_id, start, end, upstream_start, upstream_end (absent
//	         for a 429), status (499 when the client had gone), route,
//	         upstream (absent for a 429), gateway
//	server:  request_id, arrival, scheduled, first_token (absent on a 5xx;
//	         logged for non-streamed requests too, as vLLM and TGI record
//	         first-token time regardless of streaming), end, model, replica,
//	         prompt_tokens, output_tokens,
//	         finish_reason ("stop", "length", "error"), status
//
// Model simplifications: a request's decode time per token is fixed by the
// running batch size when it is admitted, and a client that gives up does
// not abort the request upstream (the gateway and server finish it).
//
// The truth durations are computed from true times under the analysis
// definitions (see TruthRow). Memory is bounded by the number of requests in
// flight, not by Config.Requests: requests are generated lazily, truth rows
// are streamed out as requests complete and the Parquet file is written in
// bounded row groups.
package simulate
