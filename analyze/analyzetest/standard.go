package analyzetest

import "time"

// Standard is the shared fixture: eight requests on a true timeline in ms
// after Base (each tier's clock is then shifted by Offsets when written).
//
//	r1  streamed, all tiers, m1/chat
//	r2  streamed, all tiers, m1/chat, long queue; client and server disagree on output tokens
//	r3  not streamed, all tiers, m2/batch
//	r4  streamed, no server record, m1/chat
//	r5  no client record, m1 (use_case unknown)
//	r6  streamed, all tiers, m1/chat, client record logged twice (exact duplicate)
//	r7  streamed, all tiers, m2/chat, retried at the gateway (two distinct records)
//	r8  streamed, all tiers, m2/chat, client end before start (anomaly)
//
// Expected values are derived in analyze's tests.
func Standard() Fixture {
	ok := Int(200)
	yes, no := Bool(true), Bool(false)
	return Fixture{
		Clients: []Client{
			{ID: "r1", Start: At(0), FirstToken: At(300), End: At(1300), Status: ok, Streamed: yes, Model: "m1", UseCase: "chat", Client: "web", Region: "eu", PromptTokens: Int(50), Output: Int(100), Line: 1},
			{ID: "r2", Start: At(1000), FirstToken: At(1600), End: At(3600), Status: ok, Streamed: yes, Model: "m1", UseCase: "chat", Client: "web", Region: "us", PromptTokens: Int(60), Output: Int(280), Line: 2},
			{ID: "r3", Start: At(2000), End: At(2500), Status: ok, Streamed: no, Model: "m2", UseCase: "batch", Client: "cli", Region: "eu", PromptTokens: Int(10), Output: Int(40), Line: 3},
			{ID: "r4", Start: At(3000), FirstToken: At(3400), End: At(4000), Status: ok, Streamed: yes, Model: "m1", UseCase: "chat", Client: "web", Region: "eu", PromptTokens: Int(20), Output: Int(60), Line: 4},
			{ID: "r6", Start: At(5000), FirstToken: At(5150), End: At(5800), Status: ok, Streamed: yes, Model: "m1", UseCase: "chat", Client: "web", Region: "eu", PromptTokens: Int(30), Output: Int(65), Line: 5},
			{ID: "r6", Start: At(5000), FirstToken: At(5150), End: At(5800), Status: ok, Streamed: yes, Model: "m1", UseCase: "chat", Client: "web", Region: "eu", PromptTokens: Int(30), Output: Int(65), Line: 6},
			{ID: "r7", Start: At(6000), FirstToken: At(6500), End: At(7000), Status: ok, Streamed: yes, Model: "m2", UseCase: "chat", Client: "web", Region: "us", PromptTokens: Int(40), Output: Int(50), Line: 8},
			{ID: "r8", Start: At(8000), FirstToken: At(8100), End: At(7900), Status: ok, Streamed: yes, Model: "m2", UseCase: "chat", Client: "web", Region: "us", PromptTokens: Int(5), Output: Int(10), Line: 9},
		},
		Gateways: []Gateway{
			{ID: "r1", Start: At(10), UpstreamStart: At(15), UpstreamEnd: At(1285), End: At(1290), Status: ok, Route: "/v1/chat", Upstream: "pool-a", Gateway: "gw1", Line: 1},
			{ID: "r2", Start: At(1012), UpstreamStart: At(1020), UpstreamEnd: At(3580), End: At(3585), Status: ok, Route: "/v1/chat", Upstream: "pool-a", Gateway: "gw1", Line: 2},
			{ID: "r3", Start: At(2005), UpstreamStart: At(2010), UpstreamEnd: At(2490), End: At(2495), Status: ok, Route: "/v1/completions", Upstream: "pool-b", Gateway: "gw2", Line: 3},
			{ID: "r4", Start: At(3010), UpstreamStart: At(3015), UpstreamEnd: At(3980), End: At(3990), Status: ok, Route: "/v1/chat", Upstream: "pool-a", Gateway: "gw1", Line: 4},
			{ID: "r5", Start: At(4000), UpstreamStart: At(4005), UpstreamEnd: At(4905), End: At(4910), Status: ok, Route: "/v1/chat", Upstream: "pool-a", Gateway: "gw2", Line: 5},
			{ID: "r6", Start: At(5005), UpstreamStart: At(5010), UpstreamEnd: At(5790), End: At(5795), Status: ok, Route: "/v1/chat", Upstream: "pool-a", Gateway: "gw1", Line: 6},
			// r7's first attempt failed upstream; the client's request was retried with the same ID.
			{ID: "r7", Start: At(6005), UpstreamStart: At(6010), UpstreamEnd: At(6100), End: At(6105), Status: Int(502), Route: "/v1/chat", Upstream: "pool-b", Gateway: "gw1", Line: 7},
			{ID: "r7", Start: At(6200), UpstreamStart: At(6205), UpstreamEnd: At(6900), End: At(6905), Status: ok, Route: "/v1/chat", Upstream: "pool-b", Gateway: "gw1", Line: 8},
			{ID: "r8", Start: At(8010), UpstreamStart: At(8015), UpstreamEnd: At(8085), End: At(8090), Status: ok, Route: "/v1/chat", Upstream: "pool-b", Gateway: "gw2", Line: 9},
		},
		Servers: []Server{
			{ID: "r1", Arrival: At(20), Scheduled: At(70), FirstToken: At(270), End: At(1280), Model: "m1", Replica: "a-0", PromptTokens: Int(50), Output: Int(100), FinishReason: "stop", Status: ok, Line: 1},
			{ID: "r2", Arrival: At(1030), Scheduled: At(1330), FirstToken: At(1530), End: At(3560), Model: "m1", Replica: "a-1", PromptTokens: Int(60), Output: Int(300), FinishReason: "stop", Status: ok, Line: 2},
			{ID: "r3", Arrival: At(2015), Scheduled: At(2025), FirstToken: At(2100), End: At(2480), Model: "m2", Replica: "b-0", PromptTokens: Int(10), Output: Int(40), FinishReason: "length", Status: ok, Line: 3},
			{ID: "r5", Arrival: At(4010), Scheduled: At(4110), FirstToken: At(4210), End: At(4900), Model: "m1", Replica: "a-0", PromptTokens: Int(15), Output: Int(80), FinishReason: "stop", Status: ok, Line: 4},
			{ID: "r6", Arrival: At(5015), Scheduled: At(5020), FirstToken: At(5140), End: At(5780), Model: "m1", Replica: "a-1", PromptTokens: Int(30), Output: Int(65), FinishReason: "stop", Status: ok, Line: 5},
			{ID: "r7", Arrival: At(6210), Scheduled: At(6260), FirstToken: At(6400), End: At(6890), Model: "m2", Replica: "b-0", PromptTokens: Int(40), Output: Int(50), FinishReason: "stop", Status: ok, Line: 6},
			{ID: "r8", Arrival: At(8020), Scheduled: At(8030), FirstToken: At(8050), End: At(8080), Model: "m2", Replica: "b-1", PromptTokens: Int(5), Output: Int(10), FinishReason: "stop", Status: ok, Line: 7},
		},
		Manifest: `{"version":1,"files":[
{"tier":"client","format":"native","path":"logs/client.jsonl","bytes":2048,"lines":10,"rows":8,"rejected":1,"duplicates":1,"blank":0,"extra":"ignored"},
{"tier":"gateway","format":"nginx","path":"logs/gateway.log","bytes":1500,"lines":10,"rows":9,"rejected":1,"duplicates":0,"blank":0},
{"tier":"server","format":"vllm","path":"logs/server.jsonl","bytes":1024,"lines":9,"rows":7,"rejected":1,"duplicates":0,"blank":1}]}`,
		Rejects: `{"tier":"client","file":"logs/client.jsonl","line":7,"kind":"syntax","reason":"unexpected end of JSON input","raw":"{\"prompt\":\"SECRET PROMPT"}
{"tier":"gateway","file":"logs/gateway.log","line":10,"kind":"bad_time","reason":"cannot parse \"yesterday\" as time","raw":"SECRET PROMPT line"}
{"tier":"server","file":"logs/server.jsonl","line":8,"kind":"missing_field","reason":"request_id missing","raw":"SECRET PROMPT"}
`,
	}
}

// ServerOffsets are the clock offsets of the server tests: the gateway 2.5 s
// and the server 200 ms ahead of the client.
var ServerOffsets = Offsets{Gateway: 2500 * time.Millisecond, Server: 200 * time.Millisecond}

// TGIRow is a TGI "Success" row as ingest writes it: end and total_time
// logged, arrival = end - total_time and scheduled = arrival + validation +
// queue derived, queue_time and inference_time as durations, no ID.
func TGIRow(arrival, total, validation, queue, inference int64, line int) Server {
	at := At
	return Server{
		Arrival: at(arrival), Scheduled: at(arrival + validation + queue), End: at(arrival + total),
		E2E: at(total), Queue: at(queue), Inference: at(inference),
		Format: "tgi", File: "logs/tgi.jsonl", Line: line,
	}
}

// GatewayRow is a gateway record that forwards 5 ms after receiving and answers 5
// ms after the upstream response ended.
func GatewayRow(id string, upStart, upEnd int64, line int) Gateway {
	at := At
	return Gateway{ID: id, Start: at(upStart - 5), UpstreamStart: at(upStart), UpstreamEnd: at(upEnd),
		End: at(upEnd + 5), Status: Int(200), Upstream: "pool-a", Gateway: "gw1", Line: line}
}
