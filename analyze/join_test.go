package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// checkStr compares string columns of one request; "" expects NULL.
func checkStr(t *testing.T, rows map[string]map[string]any, id string, want map[string]string) {
	t.Helper()
	r, ok := rows[id]
	if !ok {
		ids := make([]string, 0, len(rows))
		for k := range rows {
			ids = append(ids, k)
		}
		t.Fatalf("request %s missing; have %v", id, ids)
	}
	for col, w := range want {
		v, present := r[col]
		if !present {
			t.Errorf("%s: no column %s", id, col)
			continue
		}
		got := ""
		if v != nil {
			got = duck.String(v)
		}
		if got != w {
			t.Errorf("%s %s = %q, want %q", id, col, got, w)
		}
	}
}

// Rows without a request ID (” as ingest writes it) are requests of their
// own, keyed by their source: two GenAI-Perf-like rows whose response IDs
// join nothing, a k6-like row, and two ID-less gateway rows.
func TestJoinEmptyIDsDoNotCollapse(t *testing.T) {
	t.Parallel()
	f := analyzetest.Fixture{
		Clients: []analyzetest.Client{
			{Start: analyzetest.At(0), End: analyzetest.At(1000), Line: 1},
			{Start: analyzetest.At(500), End: analyzetest.At(2500), Line: 2},
			// two rows of one document share a source line
			{Start: analyzetest.At(600), End: analyzetest.At(900), File: "logs/bench.json", Line: 1},
			{Start: analyzetest.At(700), End: analyzetest.At(800), File: "logs/bench.json", Line: 1},
		},
		Gateways: []analyzetest.Gateway{
			{Start: analyzetest.At(10), End: analyzetest.At(990), Line: 7},
			{Start: analyzetest.At(510), End: analyzetest.At(2490), Line: 8},
		},
	}
	_, st, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	if len(rows) != 6 || st.Coverage.Requests != 6 {
		t.Fatalf("got %d requests (coverage %d), want 6: %v", len(rows), st.Coverage.Requests, rows)
	}
	// 1000 - 0 and 2500 - 500: each row keeps its own times.
	checkMs(t, rows, "unjoined:logs/client.jsonl:1", map[string]float64{"client_e2e_ms": 1000, "gateway_e2e_ms": null, "network_ms": null})
	checkMs(t, rows, "unjoined:logs/client.jsonl:2", map[string]float64{"client_e2e_ms": 2000})
	// rows of one source are told apart in the order of their values
	// (start 600 before 700)
	checkMs(t, rows, "unjoined:logs/bench.json:1#1", map[string]float64{"client_e2e_ms": 300})
	checkMs(t, rows, "unjoined:logs/bench.json:1#2", map[string]float64{"client_e2e_ms": 100})
	checkMs(t, rows, "unjoined:logs/gateway.log:7", map[string]float64{"gateway_e2e_ms": 980, "client_e2e_ms": null})
	checkMs(t, rows, "unjoined:logs/gateway.log:8", map[string]float64{"gateway_e2e_ms": 1980})
	for id, r := range rows {
		if duck.Int(r["client_records"])+duck.Int(r["gateway_records"]) != 1 {
			t.Errorf("%s: client_records %v, gateway_records %v, want one record", id, r["client_records"], r["gateway_records"])
		}
	}
	checkStr(t, rows, "unjoined:logs/client.jsonl:1", map[string]string{"client_join": "none", "gateway_join": ""})
	checkStr(t, rows, "unjoined:logs/gateway.log:7", map[string]string{"client_join": "", "gateway_join": "none"})
	if st.Coverage.ClientGateway != 0 {
		t.Errorf("client_gateway = %d, want 0", st.Coverage.ClientGateway)
	}
}

// gwSrv is a gateway and server record of request id, starting at ms on the
// true timeline: gateway at+10 -> at+990 (upstream at+15 -> at+985), server
// arrival at+20, scheduled at+70, first token at+270, end at+980.
func gwSrv(id string, at int64, line int) (analyzetest.Gateway, analyzetest.Server) {
	return analyzetest.Gateway{ID: id, Start: analyzetest.At(at + 10), End: analyzetest.At(at + 990),
			UpstreamStart: analyzetest.At(at + 15), UpstreamEnd: analyzetest.At(at + 985), Line: line},
		analyzetest.Server{ID: id, Arrival: analyzetest.At(at + 20), Scheduled: analyzetest.At(at + 70),
			FirstToken: analyzetest.At(at + 270), End: analyzetest.At(at + 980), Line: line}
}

// GenAI-Perf and GuideLLM log the response body's id, which vLLM builds
// from the request ID: chatcmpl-r7 is request r7, cmpl-r8-0 (completions,
// prompt index 0) is r8.
func TestJoinByResponseID(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for i, id := range []string{"r7", "r8", "r9"} {
		g, s := gwSrv(id, int64(i)*5000, i+1)
		f.Gateways = append(f.Gateways, g)
		f.Servers = append(f.Servers, s)
	}
	f.Clients = []analyzetest.Client{
		// client 0 -> 1000, first token 300
		{ResponseID: "chatcmpl-r7", Start: analyzetest.At(0), FirstToken: analyzetest.At(300), End: analyzetest.At(1000),
			Streamed: analyzetest.Bool(true), Format: "genai-perf", File: "logs/genai.json", Line: 1},
		{ResponseID: "cmpl-r8-0", Start: analyzetest.At(5000), End: analyzetest.At(6000),
			Format: "genai-perf", File: "logs/genai.json", Line: 2},
		// GuideLLM: its own request ID joins nothing, its response ID does
		{ID: "guidellm-1", ResponseID: "chatcmpl-r9", Start: analyzetest.At(10000), End: analyzetest.At(11000),
			Format: "guidellm", File: "logs/guidellm.json", Line: 1},
		// a response ID no gateway or server logged: its own request
		{ResponseID: "chatcmpl-elsewhere", Start: analyzetest.At(20000), End: analyzetest.At(20400),
			Format: "genai-perf", File: "logs/genai.json", Line: 3},
	}
	_, st, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	if len(rows) != 4 {
		t.Fatalf("got %d requests, want 4 (r7, r8, r9, one unjoined)", len(rows))
	}
	// r7: client_e2e 1000, gateway_e2e 980, server_e2e 960:
	//   network 1000 - 980 = 20, application 980 - 960 = 20, queue 50,
	//   model 910; client_ttft 300, server_ttft 250,
	//   ttft_application (15-10) + ((985-15) - 960) = 15, ttft_network 300-250-15 = 35
	checkMs(t, rows, "r7", map[string]float64{
		"client_e2e_ms": 1000, "gateway_e2e_ms": 980, "server_e2e_ms": 960,
		"network_ms": 20, "application_ms": 20, "queue_ms": 50, "model_ms": 910,
		"client_ttft_ms": 300, "ttft_network_ms": 35, "ttft_application_ms": 15,
	})
	checkStr(t, rows, "r7", map[string]string{"client_join": "response_id", "gateway_join": "id", "server_join": "id",
		"client_format": "genai-perf", "client_source": "logs/genai.json:1"})
	checkMs(t, rows, "r8", map[string]float64{"client_e2e_ms": 1000, "network_ms": 20})
	checkStr(t, rows, "r8", map[string]string{"client_join": "response_id"})
	checkMs(t, rows, "r9", map[string]float64{"client_e2e_ms": 1000, "network_ms": 20})
	checkStr(t, rows, "r9", map[string]string{"client_join": "response_id", "client_format": "guidellm"})
	checkMs(t, rows, "unjoined:logs/genai.json:3", map[string]float64{"client_e2e_ms": 400, "gateway_e2e_ms": null})
	checkStr(t, rows, "unjoined:logs/genai.json:3", map[string]string{"client_join": "none"})
	if st.Coverage.AllTiers != 3 {
		t.Errorf("all_tiers = %d, want 3", st.Coverage.AllTiers)
	}
}

// The SQL mapping of response IDs follows vllmRequestID (ingest) on the
// external cases of its test table: a client whose response_id is id joins
// the gateway record want, not one logged under id itself.
func TestJoinResponseIDRule(t *testing.T) {
	t.Parallel()
	type rule struct{ id, want string }
	cases := []rule{
		{"chatcmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c", "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"chatcmpl-job-12", "job-12"},
		{"chatcmpl-r-deadbeef", "r-deadbeef"},
		{"chatcmpl-7f3c9a2e4b1d4c8f9e0a1b2c3d4e5f60", "7f3c9a2e4b1d4c8f9e0a1b2c3d4e5f60"},
		{"chatcmpl-chatcmpl-x", "chatcmpl-x"},
		{"cmpl-job-12-0", "job-12"},
		{"cmpl-job-12", "job"},
		{"cmpl-b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b-3", "b5d0c7e2a1f34e6c9d8b7a6f5e4d3c2b"},
		{"cmpl-4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c-0", "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"cmpl-abc", "abc"},
		{"chatcmpl-r-deadbeef-0a1b2c3d", "r-deadbeef-0a1b2c3d"},
		{"4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c", "4f1c2a9e-8b7d-4e21-9c3a-5d6e7f8a9b0c"},
		{"embd-abc-0", "embd-abc-0"},
		{"chatcmpl-", "chatcmpl-"},
		{"cmpl-", "cmpl-"},
		{"42", "42"},
	}
	// Cases share a fixture, each in its own second, unless a string of
	// one is part of a string of the other (one's ID, or want, could then
	// join or decoy the other): four analyses instead of one per case.
	related := func(a, b rule) bool {
		for _, x := range []string{a.id, a.want} {
			for _, y := range []string{b.id, b.want} {
				if strings.Contains(x, y) || strings.Contains(y, x) {
					return true
				}
			}
		}
		return false
	}
	var groups [][]rule
next:
	for _, c := range cases {
	group:
		for i, g := range groups {
			for _, d := range g {
				if related(c, d) {
					continue group
				}
			}
			groups[i] = append(g, c)
			continue next
		}
		groups = append(groups, []rule{c})
	}
	for _, g := range groups {
		var f analyzetest.Fixture
		for k, c := range g {
			at := func(ms int64) analyzetest.T { return analyzetest.At(int64(k)*1000 + ms) }
			f.Clients = append(f.Clients, analyzetest.Client{ResponseID: c.id, Start: at(0), End: at(100), Line: len(f.Clients) + 1})
			f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: c.want, Start: at(5), End: at(95), Line: len(f.Gateways) + 1})
			if c.id != c.want {
				// a decoy logged under the unmapped ID
				f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: c.id, Start: at(6), End: at(94), Line: len(f.Gateways) + 1})
			}
		}
		_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
		for _, c := range g {
			r, ok := rows[c.want]
			if !ok || r["has_client"] != true || duck.String(r["client_join"]) != "response_id" {
				t.Errorf("response_id %q: request %q has_client=%v client_join=%v, want the client joined by response_id",
					c.id, c.want, r["has_client"], r["client_join"])
			}
		}
	}
}

// OpenTelemetry gateways and clients carry trace IDs where request IDs are
// absent. One record per tier in a trace joins exactly; several on both
// tiers join in start order, each tier on its own clock; different numbers
// on the two tiers join nothing.
func TestJoinByTraceID(t *testing.T) {
	t.Parallel()
	cl := func(trace string, start, end int64, line int) analyzetest.Client {
		return analyzetest.Client{TraceID: trace, Start: analyzetest.At(start), End: analyzetest.At(end),
			Format: "otel-client", File: "logs/client-otel.jsonl", Line: line}
	}
	gw := func(trace string, start, end int64, line int) analyzetest.Gateway {
		return analyzetest.Gateway{TraceID: trace, Start: analyzetest.At(start), End: analyzetest.At(end),
			Format: "otel-gateway", File: "logs/gateway-otel.jsonl", Line: line}
	}
	f := analyzetest.Fixture{
		Clients: []analyzetest.Client{
			cl("t1", 0, 1000, 1),
			// t2: two calls in one trace (an agent step), listed out of order
			cl("t2", 3200, 4200, 2),
			cl("t2", 3000, 3500, 3),
			// t3: two client records, one gateway record: ambiguous
			cl("t3", 6000, 6500, 4),
			cl("t3", 6100, 6600, 5),
			// t4: the gateway has no ID but the server (vllm-otlp) has
			cl("t4", 9000, 10000, 6),
			// t5: no gateway record; the server's trace
			cl("t5", 12000, 13000, 7),
			// t6: two client records, one server record, no gateway: ambiguous
			cl("t6", 15000, 16000, 8),
			cl("t6", 15100, 16100, 9),
		},
		Gateways: []analyzetest.Gateway{
			gw("t1", 10, 990, 1),
			gw("t2", 3010, 3490, 2),
			gw("t2", 3210, 4170, 3),
			gw("t3", 6010, 6490, 4),
			{TraceID: "t4", Start: analyzetest.At(9010), End: analyzetest.At(9990),
				UpstreamStart: analyzetest.At(9015), UpstreamEnd: analyzetest.At(9985), Format: "otel-gateway", Line: 5},
			// t7: one gateway record joins its server record by ID; only the
			// other records of the trace are paired by trace, although the
			// ID-less gateway record started first and r-t7a arrived first.
			{ID: "r-t7a", TraceID: "t7", Start: analyzetest.At(18100), End: analyzetest.At(18990), Line: 6},
			{TraceID: "t7", Start: analyzetest.At(18000), End: analyzetest.At(18900), Line: 7},
		},
		Servers: []analyzetest.Server{
			{ID: "srv-4", TraceID: "t4", Arrival: analyzetest.At(9020), Scheduled: analyzetest.At(9070),
				FirstToken: analyzetest.At(9270), End: analyzetest.At(9980), Format: "vllm-otlp", Line: 1},
			{ID: "srv-5", TraceID: "t5", Arrival: analyzetest.At(12020), Scheduled: analyzetest.At(12070),
				FirstToken: analyzetest.At(12270), End: analyzetest.At(12980), Format: "vllm-otlp", Line: 2},
			{ID: "srv-6", TraceID: "t6", Arrival: analyzetest.At(15020), End: analyzetest.At(15980), Format: "vllm-otlp", Line: 3},
			{ID: "r-t7a", TraceID: "t7", Arrival: analyzetest.At(18110), End: analyzetest.At(18980), Line: 4},
			{ID: "r-t7b", TraceID: "t7", Arrival: analyzetest.At(18200), End: analyzetest.At(18800), Line: 5},
		},
	}
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	// t1: client 1000, gateway 980: network 20.
	checkMs(t, rows, "trace:t1", map[string]float64{"client_e2e_ms": 1000, "gateway_e2e_ms": 980, "network_ms": 20})
	checkStr(t, rows, "trace:t1", map[string]string{"client_join": "trace_id", "gateway_join": "trace_id",
		"client_format": "otel-client", "gateway_format": "otel-gateway"})
	// t2 in start order: client 3000->3500 with gateway 3010->3490
	// (network 500 - 480 = 20), client 3200->4200 with gateway 3210->4170
	// (1000 - 960 = 40). Crossed, they would give -460 and 520.
	checkMs(t, rows, "trace:t2#1", map[string]float64{"client_e2e_ms": 500, "gateway_e2e_ms": 480, "network_ms": 20})
	checkMs(t, rows, "trace:t2#2", map[string]float64{"client_e2e_ms": 1000, "gateway_e2e_ms": 960, "network_ms": 40})
	checkStr(t, rows, "trace:t2#1", map[string]string{"client_join": "trace_order", "gateway_join": "trace_order"})
	// t3: ambiguous; the gateway record and both client records stay apart.
	checkMs(t, rows, "trace:t3", map[string]float64{"gateway_e2e_ms": 480, "client_e2e_ms": null})
	checkStr(t, rows, "trace:t3", map[string]string{"gateway_join": "none", "client_join": ""})
	checkMs(t, rows, "unjoined:logs/client-otel.jsonl:4", map[string]float64{"client_e2e_ms": 500, "network_ms": null})
	checkMs(t, rows, "unjoined:logs/client-otel.jsonl:5", map[string]float64{"client_e2e_ms": 500})
	// t4: gateway -> server by trace, client -> that gateway record by trace.
	//   client 1000, gateway 980, server 960: network 20, application 20.
	checkMs(t, rows, "srv-4", map[string]float64{"client_e2e_ms": 1000, "network_ms": 20, "application_ms": 20, "queue_ms": 50})
	checkStr(t, rows, "srv-4", map[string]string{"client_join": "trace_id", "gateway_join": "trace_id", "server_join": "id"})
	// t5: client -> server by trace; no gateway, so no network or application.
	checkMs(t, rows, "srv-5", map[string]float64{"client_e2e_ms": 1000, "server_e2e_ms": 960, "network_ms": null})
	checkStr(t, rows, "srv-5", map[string]string{"client_join": "trace_id", "gateway_join": ""})
	checkStr(t, rows, "srv-6", map[string]string{"client_join": ""})
	checkStr(t, rows, "unjoined:logs/client-otel.jsonl:8", map[string]string{"client_join": "none"})
	// t7: gateway 18100 -> 18990 (890) with r-t7a by ID, 18000 -> 18900
	// (900) with r-t7b by trace; one gateway record each.
	checkMs(t, rows, "r-t7a", map[string]float64{"gateway_e2e_ms": 890, "gateway_records": 1})
	checkMs(t, rows, "r-t7b", map[string]float64{"gateway_e2e_ms": 900, "server_e2e_ms": 600, "gateway_records": 1})
	checkStr(t, rows, "r-t7a", map[string]string{"gateway_join": "id"})
	checkStr(t, rows, "r-t7b", map[string]string{"gateway_join": "trace_id"})
	if len(rows) != 13 {
		t.Errorf("got %d requests, want 13", len(rows))
	}
}

// Clients timing on a monotonic clock log durations only (vllm-bench), and
// gateways their own TTFT (Envoy AI Gateway, Kong) and the upstream's first
// byte.
func TestClientAndGatewayDurations(t *testing.T) {
	t.Parallel()
	g, s := gwSrv("bench-0", 0, 1)
	g.UpstreamFirstByte = analyzetest.At(280)
	g.TTFT = analyzetest.At(275) // a logged duration: 275 ms
	f := analyzetest.Fixture{
		Clients: []analyzetest.Client{
			// no instants: e2e 1020 ms, ttft 310 ms on the client's monotonic clock
			{ID: "bench-0", E2E: analyzetest.At(1020), TTFT: analyzetest.At(310), Streamed: analyzetest.Bool(true), Output: analyzetest.Int(100),
				Format: "vllm-bench", File: "logs/bench.json", Line: 1},
			// instants and durations: the measured durations win (999 and
			// 299 rather than 6000 - 5000 and 5300 - 5000); the wall-clock
			// difference stays visible as client_wall_e2e_ms
			{ID: "aiperf-1", Start: analyzetest.At(5000), FirstToken: analyzetest.At(5300), End: analyzetest.At(6000),
				E2E: analyzetest.At(999), TTFT: analyzetest.At(299), Format: "aiperf", Line: 2},
		},
		Gateways: []analyzetest.Gateway{g},
		Servers:  []analyzetest.Server{s},
	}
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	// bench-0: client_e2e 1020, gateway_e2e 980, server_e2e 960:
	//   network 1020 - 980 = 40, application 20, queue 50, model 910
	//   (40 + 20 + 50 + 910 = 1020); client_ttft 310, server_ttft 250,
	//   ttft_application 15, ttft_network 310 - 250 - 15 = 45.
	//   gateway_ttft 275 (logged); gateway_upstream_ttfb 280 - 15 = 265.
	//   tps_user: the 99 tokens after the first over 1020 - 310 = 710 ms.
	checkMs(t, rows, "bench-0", map[string]float64{
		"client_e2e_ms": 1020, "client_ttft_ms": 310, "network_ms": 40, "application_ms": 20,
		"queue_ms": 50, "model_ms": 910, "ttft_network_ms": 45, "ttft_application_ms": 15,
		"gateway_ttft_ms": 275, "gateway_upstream_ttfb_ms": 265, "server_ttft_ms": 250,
		"tps_user": 99 / 0.710, "client_wall_e2e_ms": null,
	})
	checkMs(t, rows, "aiperf-1", map[string]float64{"client_e2e_ms": 999, "client_ttft_ms": 299, "client_wall_e2e_ms": 1000,
		"gateway_ttft_ms": null, "gateway_upstream_ttfb_ms": null})
}

// The summary gives each pair of tiers its join rate by method and, per tier
// and format, the records that joined nothing.
func TestSummarizeJoins(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for i, id := range []string{"r1", "r2", "r3"} {
		g, s := gwSrv(id, int64(i)*5000, i+1)
		f.Gateways = append(f.Gateways, g)
		f.Servers = append(f.Servers, s)
	}
	f.Servers = append(f.Servers, analyzetest.Server{Format: "trtllm", Arrival: analyzetest.At(100), End: analyzetest.At(200), Line: 9})
	f.Clients = []analyzetest.Client{
		{ID: "r1", Start: analyzetest.At(0), End: analyzetest.At(1000), Format: "aiperf", Line: 1},
		{ResponseID: "chatcmpl-r2", Start: analyzetest.At(5000), End: analyzetest.At(6000), Format: "genai-perf", Line: 2},
		{ResponseID: "chatcmpl-nowhere", Start: analyzetest.At(7000), End: analyzetest.At(7100), Format: "genai-perf", Line: 3},
		{Start: analyzetest.At(8000), End: analyzetest.At(8100), Format: "genai-perf", Line: 4},
	}
	r := summarize(t, f)
	// 6 requests: r1, r2, r3, two unjoined client rows; the trtllm row is in
	// none. client-gateway: 2 joined of 4 client and 3 gateway requests.
	want := []JoinPair{
		{Pair: "client-gateway", Left: "client", Right: "gateway", Joined: 2, LeftTotal: 4, RightTotal: 3,
			Methods: []MethodCount{{"id", 1}, {"response_id", 1}}},
		{Pair: "gateway-server", Left: "gateway", Right: "server", Joined: 3, LeftTotal: 3, RightTotal: 3,
			Methods: []MethodCount{{"id", 3}}},
		{Pair: "client-server", Left: "client", Right: "server", Joined: 2, LeftTotal: 4, RightTotal: 3,
			Methods: []MethodCount{{"id", 1}, {"response_id", 1}}},
	}
	if fmt.Sprint(r.Joins) != fmt.Sprint(want) {
		t.Errorf("Joins = %v\nwant %v", r.Joins, want)
	}
	wantU := []UnjoinedRows{
		{"client", "aiperf", 1, 0, 0},
		{"client", "genai-perf", 3, 2, 0},
		{"gateway", "native", 3, 0, 0},
		{"server", "native", 3, 0, 0},
		{"server", "trtllm", 1, 1, 0},
	}
	if fmt.Sprint(r.Unjoined) != fmt.Sprint(wantU) {
		t.Errorf("Unjoined = %v\nwant %v", r.Unjoined, wantU)
	}
	if !containsText(said(r).Findings, "client↔gateway: 2 requests joined, 50.0% of the 4 with a client record and 66.7% of the 3 with a gateway record: 1 by request ID, 1 by response ID") {
		t.Errorf("no client↔gateway join finding in %q", said(r).Findings)
	}
	if !containsText(said(r).Findings, "2 of 3 client records of format genai-perf joined no other tier") {
		t.Errorf("no unjoined finding in %q", said(r).Findings)
	}
}
