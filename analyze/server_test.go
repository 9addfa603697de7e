package analyze

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// analyzetest.ServerOffsets: the gateway's clock runs 2.5 s ahead of the client's and
// the inference servers' 0.2 s ahead, so the gateway is 2.3 s ahead of the
// TGI host: TGI rows can only be matched once that skew is estimated.

// serverFormatsFixture is the fixture of TestServerFormats, on the true timeline
// in ms (each tier's clock is then shifted by analyzetest.ServerOffsets).
func serverFormatsFixture() analyzetest.Fixture {
	at, yes := analyzetest.At, analyzetest.Bool(true)
	return analyzetest.Fixture{
		Clients: []analyzetest.Client{
			{ID: "d1", Start: at(50000), End: at(51000), Status: analyzetest.Int(200), Line: 1},
			{ID: "v1", Start: at(60000), FirstToken: at(60400), End: at(61300), Streamed: yes, Status: analyzetest.Int(200), Line: 2},
			{ID: "t1", Start: at(9990), End: at(11010), Status: analyzetest.Int(200), Line: 3},
		},
		Gateways: []analyzetest.Gateway{
			{ID: "d1", Start: at(50010), UpstreamStart: at(50015), UpstreamEnd: at(50985), End: at(50990), Gateway: "gw1", Line: 1},
			{ID: "v1", Start: at(60010), UpstreamStart: at(60020), UpstreamEnd: at(61270), End: at(61280), Gateway: "gw1", Line: 2},
			{ID: "v2", Start: at(70000), UpstreamStart: at(70005), UpstreamEnd: at(70100), End: at(70105), Gateway: "gw1", Line: 3},
			analyzetest.GatewayRow("t1", 10000, 11000, 4),
			analyzetest.GatewayRow("t2", 12000, 12600, 5),
			analyzetest.GatewayRow("t3", 14000, 16000, 6),
			analyzetest.GatewayRow("t4a", 20000, 20500, 7),
			analyzetest.GatewayRow("t4b", 20006, 20505, 8),
			analyzetest.GatewayRow("t6", 30000, 30800, 9),
		},
		Servers: []analyzetest.Server{
			// d1, Triton-like: durations only, no instant at all.
			{ID: "d1", E2E: at(900), Queue: at(150), Inference: at(700), Model: "m", Format: "triton", File: "logs/trace.json", Line: 1},
			// v1, vLLM span: instants derived from arrival + durations, and
			// the durations; prefill + decode + queue < e2e.
			{ID: "v1", Arrival: at(60030), Scheduled: at(60130), FirstToken: at(60330), End: at(61230),
				E2E: at(1200), Queue: at(100), TTFT: at(300), Prefill: at(150), Decode: at(900), Inference: at(1050),
				Output: analyzetest.Int(90), Format: "vllm-otlp", File: "logs/spans.jsonl", Line: 1},
			// vLLM text log lines: annotations of v1 (one with the finish
			// reason the span lacks), of v2 (which no timing record has) and
			// of v3 (which no tier has at all).
			{ID: "v1", Format: "vllm-log", File: "logs/vllm.log", Line: 1},
			{ID: "v1", FinishReason: "stop", Format: "vllm-log", File: "logs/vllm.log", Line: 2},
			{ID: "v2", Error: "aborted", FinishReason: "abort", Format: "vllm-log", File: "logs/vllm.log", Line: 3},
			{ID: "v3", FinishReason: "stop", Format: "vllm-log", File: "logs/vllm.log", Line: 4},
			// TGI rows, no ID. t1..t4 and t6 arrive 3 ms after the gateway
			// forwarded and end 2 ms before the gateway had the response.
			analyzetest.TGIRow(10003, 995, 5, 100, 880, 1),
			analyzetest.TGIRow(10003, 995, 5, 100, 880, 9), // t1's line delivered twice
			analyzetest.TGIRow(12003, 595, 5, 50, 530, 2),
			analyzetest.TGIRow(14003, 1995, 5, 300, 1680, 3),
			analyzetest.TGIRow(20003, 495, 5, 20, 460, 4), // t4a, but t4b is close too
			analyzetest.TGIRow(40000, 700, 5, 10, 680, 5), // no gateway record near
			analyzetest.TGIRow(30003, 795, 5, 10, 770, 6), // t6
			analyzetest.TGIRow(30010, 780, 5, 10, 755, 7), // fits t6 too, whose gateway record t6's row takes
		},
	}
}

// TestServerFormats checks the server measures of duration-only, mixed and
// annotation records and the matching of TGI rows to gateway records.
func TestServerFormats(t *testing.T) {
	t.Parallel()
	_, _, rows := runFixture(t, serverFormatsFixture(), analyzetest.ServerOffsets)

	// d1 (Triton-like, durations only): server_e2e 900, queue 150,
	//   inference 700, so server_overhead = 900 - 150 - 700 = 50.
	//   client 1000, gateway 50990 - 50010 = 980: network 20,
	//   application 980 - 900 + 50 = 130, model = inference 700:
	//   20 + 130 + 150 + 700 = 1000. No prefill/decode split, no TTFT.
	checkMs(t, rows, "d1", map[string]float64{
		"client_e2e_ms": 1000, "gateway_e2e_ms": 980, "server_e2e_ms": 900,
		"network_ms": 20, "application_ms": 130, "queue_ms": 150, "model_ms": 700,
		"server_overhead_ms": 50, "prefill_ms": null, "decode_ms": null,
		"server_ttft_ms": null, "ttft_model_ms": null, "ttft_application_ms": null,
	})
	// v1 (vLLM-like): e2e 61230 - 60030 = 1200, queue 100, ttft 300,
	//   prefill 150, decode 900: overhead 1200 - 100 - 150 - 900 = 50.
	//   client 1300, gateway 61280 - 60010 = 1270: network 30,
	//   application 1270 - 1200 + 50 = 120, model 150 + 900 = 1050:
	//   30 + 120 + 100 + 1050 = 1300.
	//   TTFT: client 400, server 300, TTFT overhead 300 - 100 - 150 = 50,
	//   ttft_application (60020 - 60010) + ((61270 - 60020) - 1200) + 50 = 110,
	//   ttft_network 400 - 300 - (110 - 50) = 40, ttft_model = prefill 150:
	//   40 + 110 + 100 + 150 = 400.
	checkMs(t, rows, "v1", map[string]float64{
		"client_e2e_ms": 1300, "gateway_e2e_ms": 1270, "server_e2e_ms": 1200,
		"network_ms": 30, "application_ms": 120, "queue_ms": 100, "model_ms": 1050,
		"prefill_ms": 150, "decode_ms": 900, "server_overhead_ms": 50,
		"client_ttft_ms": 400, "server_ttft_ms": 300, "ttft_network_ms": 40,
		"ttft_application_ms": 110, "ttft_queue_ms": 100, "ttft_model_ms": 150,
		"ttft_prefill_ms": 150, "ttft_server_overhead_ms": 50,
	})
	// t1 (TGI, matched by time): e2e 995, queue = the logged queue_time 100
	//   (a measured duration beats scheduled - arrival = validation 5 +
	//   queue 100 = 105: validation is server work before the queue),
	//   inference 880, overhead 995 - 100 - 880 = 15 (validation 5 and 10
	//   the router spent outside both). client 11010 - 9990 = 1020, gateway
	//   11005 - 9995 = 1010: network 10, application 1010 - 995 + 15 = 30,
	//   model 880: 10 + 30 + 100 + 880 = 1020.
	checkMs(t, rows, "t1", map[string]float64{
		"client_e2e_ms": 1020, "gateway_e2e_ms": 1010, "server_e2e_ms": 995,
		"network_ms": 10, "application_ms": 30, "queue_ms": 100, "model_ms": 880,
		"server_overhead_ms": 15, "prefill_ms": null, "decode_ms": null, "server_ttft_ms": null,
	})
	// t2, t3, t6: matched; each has 15 ms of overhead the same way.
	checkMs(t, rows, "t2", map[string]float64{"server_e2e_ms": 595, "queue_ms": 50, "model_ms": 530, "server_overhead_ms": 15})
	checkMs(t, rows, "t3", map[string]float64{"server_e2e_ms": 1995, "queue_ms": 300, "model_ms": 1680, "server_overhead_ms": 15})
	checkMs(t, rows, "t6", map[string]float64{"server_e2e_ms": 795, "queue_ms": 10, "model_ms": 770, "server_overhead_ms": 15})
	// t4a: the TGI row's own pair is exact; t4b's record ends 5 ms later and
	//   started 6 ms later (score 5 + 6 = 11 ms, inside the 10 ms
	//   tolerance on each end): two candidates, the nearer wins and the row
	//   counts as ambiguous.
	checkMs(t, rows, "t4a", map[string]float64{"server_e2e_ms": 495, "queue_ms": 20, "model_ms": 460})

	type want struct {
		hasServer      bool
		format, join   string
		candidates     int64
		records, annot int64
		source         string
	}
	for id, w := range map[string]want{
		"d1":  {true, "triton", "id", 0, 1, 0, "logs/trace.json:1"},
		"v1":  {true, "vllm-otlp", "id", 0, 1, 2, "logs/spans.jsonl:1"},
		"v2":  {false, "", "", 0, 0, 1, ""},
		"t1":  {true, "tgi", "time", 1, 1, 0, "logs/tgi.jsonl:1"},
		"t2":  {true, "tgi", "time", 1, 1, 0, "logs/tgi.jsonl:2"},
		"t3":  {true, "tgi", "time", 1, 1, 0, "logs/tgi.jsonl:3"},
		"t4a": {true, "tgi", "time", 2, 1, 0, "logs/tgi.jsonl:4"},
		"t4b": {false, "", "", 0, 0, 0, ""},
		"t6":  {true, "tgi", "time", 1, 1, 0, "logs/tgi.jsonl:6"},
	} {
		r, ok := rows[id]
		if !ok {
			t.Errorf("%s missing", id)
			continue
		}
		got := want{r["has_server"] == true, duck.String(r["server_format"]), duck.String(r["server_join"]),
			duck.Int(r["server_match_candidates"]), duck.Int(r["server_records"]), duck.Int(r["server_annotations"]), duck.String(r["server_source"])}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", id, got, w)
		}
	}
	// Annotations fill what the timing record lacks and never make a
	// request: v1 takes the log's finish reason, v2 (gateway only) its error,
	// and v3, which only the vLLM log names, is no request.
	if r := rows["v1"]; r["finish_reason"] != "stop" || r["error"] != nil {
		t.Errorf("v1 finish_reason/error = %v/%v, want stop/NULL", r["finish_reason"], r["error"])
	}
	if r := rows["v2"]; r["finish_reason"] != "abort" || r["error"] != "aborted" || r["queue_ms"] != nil {
		t.Errorf("v2 finish_reason/error/queue = %v/%v/%v", r["finish_reason"], r["error"], r["queue_ms"])
	}
	if _, ok := rows["v3"]; ok {
		t.Error("v3, named only by an annotation, is a request")
	}
	// 3 clients' IDs + 9 gateway records' IDs, d1, v1, t1 shared: 9 requests.
	if len(rows) != 9 {
		t.Errorf("%d requests, want 9", len(rows))
	}
	for id, r := range rows {
		if r["anomaly"] != nil {
			t.Errorf("%s anomaly = %v", id, r["anomaly"])
		}
		// The four components sum to client E2E wherever all tiers exist.
		if r["has_client"] == true && r["has_gateway"] == true && r["has_server"] == true {
			sum := *duck.Float(r["network_ms"]) + *duck.Float(r["application_ms"]) + *duck.Float(r["queue_ms"]) + *duck.Float(r["model_ms"])
			if e2e := *duck.Float(r["client_e2e_ms"]); math.Abs(sum-e2e) > 1e-9 {
				t.Errorf("%s: components sum to %v, client E2E %v", id, sum, e2e)
			}
		}
	}
}

// A gateway record whose request already has a timing server record by ID
// is never a candidate: TGI rows that fit d1's and v1's gateway records
// exactly (3 ms after upstream_start, 2 ms before upstream_end, like the
// true pairs that fix the skew) stay unmatched.
func TestServerFormatsIDRecordsNotCandidates(t *testing.T) {
	t.Parallel()
	f := serverFormatsFixture()
	f.Servers = append(f.Servers, analyzetest.TGIRow(50018, 965, 5, 100, 840, 20), analyzetest.TGIRow(60023, 1245, 5, 100, 1100, 21))
	_, _, rows := runFixture(t, f, analyzetest.ServerOffsets)
	matched := 0
	for _, r := range rows {
		if r["server_join"] == "time" {
			matched++
		}
	}
	if matched != 5 {
		t.Errorf("%d requests matched by time, want 5 (t1, t2, t3, t4a, t6)", matched)
	}
	if r := rows["d1"]; r["server_format"] != "triton" || duck.Int(r["server_records"]) != 1 {
		t.Errorf("d1 format/records = %v/%v", r["server_format"], r["server_records"])
	}
	if r := rows["v1"]; r["server_format"] != "vllm-otlp" || duck.Int(r["server_records"]) != 1 {
		t.Errorf("v1 format/records = %v/%v", r["server_format"], r["server_records"])
	}
}

func TestServerFormatsSummary(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, serverFormatsFixture(), analyzetest.ServerOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ServerFormat{}
	for _, f := range res.ServerFormats {
		got[f.Format] = f
	}
	// tgi: 8 rows, t1's twice, so 7 distinct to match; t1, t2, t3, t4a and
	// t6 matched, t4a ambiguous; t5 and t7 unmatched.
	for name, w := range map[string]ServerFormat{
		"tgi":       {Format: "tgi", Records: 8, Queue: 8, InferenceOnly: 8, Requests: 5, ByTime: 5, Ambiguous: 1, MatchPool: 7},
		"triton":    {Format: "triton", Records: 1, WithID: 1, Queue: 1, InferenceOnly: 1, Requests: 1, ByID: 1},
		"vllm-otlp": {Format: "vllm-otlp", Records: 1, WithID: 1, Queue: 1, Prefill: 1, Decode: 1, TTFT: 1, Tokens: 1, Requests: 1, ByID: 1},
		"vllm-log":  {Format: "vllm-log", Annotation: true, Records: 4, WithID: 4, Annotated: 2},
	} {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
	if len(got) != 4 {
		t.Errorf("%d formats, want 4: %+v", len(got), res.ServerFormats)
	}
	for _, want := range []string{
		"5 of 7 tgi records (71.4%) were matched to a gateway record by time",
		"1 of the matches were ambiguous",
		"2 stayed unmatched",
		"4 annotation records from vllm-log",
		"annotate 2 requests",
	} {
		found := false
		for _, f := range said(res).Findings {
			found = found || strings.Contains(f, want)
		}
		if !found {
			t.Errorf("no finding says %q:\n%s", want, strings.Join(said(res).Findings, "\n"))
		}
	}
	// The split of server time names its formats: prefill and decode come
	// from vllm-otlp only; server overhead from every format that logs work
	// as durations.
	all := res.Slices[0]
	split := map[string]Component{}
	for _, c := range all.ServerSplit {
		split[c.Name] = c
	}
	if c := split["prefill"]; c.N != 1 || strings.Join(c.Formats, ",") != "vllm-otlp" || c.P50 == nil || *c.P50 != 150 {
		t.Errorf("prefill = %+v", c)
	}
	if c := split["server overhead"]; c.N != 7 || strings.Join(c.Formats, ",") != "tgi,triton,vllm-otlp" {
		t.Errorf("server overhead = %+v", c)
	}
}

// A negative duration the server logged, and work longer than the server's
// own E2E, are flagged, not hidden: n1 logs e2e 100, queue -5 (a wall clock
// stepped back) and inference 120, so overhead = 100 - (-5) - 120 = -15.
func TestServerDurationAnomalies(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	f := analyzetest.Fixture{Servers: []analyzetest.Server{
		{ID: "n1", E2E: at(100), Queue: at(-5), Inference: at(120), Format: "vllm-otlp", Line: 1},
		{ID: "n2", E2E: at(100), Queue: at(5), Inference: at(90), Format: "vllm-otlp", Line: 2},
	}}
	_, _, rows := runFixture(t, f, analyzetest.ServerOffsets)
	checkMs(t, rows, "n1", map[string]float64{"server_e2e_ms": 100, "queue_ms": -5, "model_ms": 120, "server_overhead_ms": -15})
	if got := rows["n1"]["anomaly"]; got != "negative server duration logged; negative server_overhead_ms" {
		t.Errorf("n1 anomaly = %v", got)
	}
	if got := rows["n2"]["anomaly"]; got != nil {
		t.Errorf("n2 anomaly = %v, want none (overhead 5 ms)", got)
	}
}

// SGLang's float seconds make a true overhead of 0 read a few tenths of a
// µs either side (clock_round_off_ns): s1 logs e2e 100 ms, queue 10 and
// inference 90 ms + 300 ns, an overhead of -0.0003 ms, which is kept as
// computed but is no anomaly; s2's -5 ms (inference 95) still is. The same
// -0.0003 ms from vllm-otlp, whose times are integer ns, is one.
func TestSGLangOverheadRoundOff(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	f := analyzetest.Fixture{Servers: []analyzetest.Server{
		{ID: "s1", E2E: at(100), Queue: at(10), Inference: at(90), InferencePlusNS: 300, Format: "sglang-metrics", Line: 1},
		{ID: "s2", E2E: at(100), Queue: at(10), Inference: at(95), Format: "sglang-metrics", Line: 2},
		{ID: "s3", E2E: at(100), Queue: at(10), Inference: at(90), InferencePlusNS: 300, Format: "sglang-log", Line: 3},
		{ID: "v1", E2E: at(100), Queue: at(10), Inference: at(90), InferencePlusNS: 300, Format: "vllm-otlp", Line: 4},
	}}
	_, _, rows := runFixture(t, f, analyzetest.ServerOffsets)
	for id, want := range map[string]struct {
		overhead float64
		anomaly  any
	}{
		"s1": {-0.0003, nil},
		"s2": {-5, "negative server_overhead_ms"},
		"s3": {-0.0003, nil},
		"v1": {-0.0003, "negative server_overhead_ms"},
	} {
		checkMs(t, rows, id, map[string]float64{"server_overhead_ms": want.overhead})
		if got := rows[id]["anomaly"]; got != want.anomaly {
			t.Errorf("%s (%s, overhead %v ms): anomaly %v, want %v", id, rows[id]["server_format"], want.overhead, got, want.anomaly)
		}
	}
}

// The TGI host's clock drifts 20 ppm against the gateway's: 72 ms over the
// hour of this log. Ten requests, one every 400 s, are logged by both; the
// TGI rows are shifted by the drift, 0.02 ms per second since the first.
// At the last one (3600 s, 72 ms of drift) a decoy gateway record starts and
// ends 36 ms before the true one: exactly where a constant offset (the
// median, 36 ms of drift) would expect the request. Only the offset as a
// line over time picks the true record; the decoy stays unmatched.
func TestTGIMatchFollowsDrift(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for k := int64(0); k < 10; k++ {
		start := k * 400000
		drift := k * 8 // 0.02 ms/s * 400 s
		id := fmt.Sprintf("d%d", k)
		f.Gateways = append(f.Gateways, analyzetest.GatewayRow(id, start, start+1000, int(k+1)))
		f.Servers = append(f.Servers, analyzetest.TGIRow(start+3-drift, 995, 5, 100, 880, int(k+1)))
	}
	f.Gateways = append(f.Gateways, analyzetest.GatewayRow("decoy", 9*400000-36, 9*400000+1000-36, 11))
	_, _, rows := runFixture(t, f, analyzetest.ServerOffsets)
	for k := 0; k < 10; k++ {
		id := fmt.Sprintf("d%d", k)
		if r := rows[id]; r["server_join"] != "time" || r["server_source"] != fmt.Sprintf("logs/tgi.jsonl:%d", k+1) {
			t.Errorf("%s: server_join %v, source %v", id, r["server_join"], r["server_source"])
		}
	}
	if r := rows["decoy"]; r["has_server"] != false {
		t.Errorf("decoy has a server record: %v", r["server_source"])
	}
	// The true pairs lie on the offset line, so the tolerance estimated
	// from them is its 10 ms floor and the decoy, 36 ms off, is not even a
	// candidate.
	if got := duck.Int(rows["d9"]["server_match_candidates"]); got != 1 {
		t.Errorf("d9 had %d candidates, want 1 (itself; the decoy is outside the tolerance)", got)
	}
}

// Envoy's default access log gives a gateway record only %START_TIME% and
// %DURATION%: no upstream times. TGI rows are then matched on the
// gateway's own start and end, whose offsets also hold the gateway's work
// before (2..6 ms here) and after (1..3 ms) the upstream call; the
// tolerance comes from that spread. e1..e8 match; e9's gateway spent 60 ms
// on auth before forwarding, far outside the spread: it stays unmatched,
// which takes the TGI join rate below 90%, and the report says why.
func TestTGIMatchEnvoyDefault(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	var f analyzetest.Fixture
	pre := []int64{2, 4, 3, 6, 5, 2, 4, 3, 60}
	post := []int64{1, 2, 3, 1, 2, 3, 1, 2, 2}
	for k := range pre {
		id := fmt.Sprintf("e%d", k+1)
		start := int64(k) * 7000
		total := int64(800 + 150*k)
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: at(start), End: at(start + pre[k] + total + post[k]),
			Status: analyzetest.Int(200), Upstream: "10.1.4.23:8000", Format: "envoy", File: "logs/envoy.log", Line: k + 1})
		f.Servers = append(f.Servers, analyzetest.TGIRow(start+pre[k], total, 5, 50, total-70, k+1))
	}
	dir, _, rows := runFixture(t, f, analyzetest.ServerOffsets)
	for k := 1; k <= 8; k++ {
		id := fmt.Sprintf("e%d", k)
		if r := rows[id]; r["server_join"] != "time" || r["server_source"] != fmt.Sprintf("logs/tgi.jsonl:%d", k) {
			t.Errorf("%s: server_join %v, source %v", id, r["server_join"], r["server_source"])
		}
	}
	// e1: gateway 2 + 800 + 1 = 803, TGI total 800, queue 50,
	// inference 730: overhead 20, application 803 - 800 + 20 = 23.
	checkMs(t, rows, "e1", map[string]float64{"gateway_e2e_ms": 803, "server_e2e_ms": 800, "queue_ms": 50,
		"model_ms": 730, "server_overhead_ms": 20, "application_ms": 23})
	if r := rows["e9"]; r["has_server"] != false {
		t.Errorf("e9 matched %v, 60 ms outside the gateway's usual spread", r["server_source"])
	}
	res, err := summarize1(context.Background(), dir, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := "Only 8 of 9 tgi server records (88.9%) joined a gateway or client record: 1 found no gateway record within the tolerance"
	found := false
	for _, s := range said(res).Findings {
		if strings.Contains(s, want) {
			found = true
			t.Log(s)
		}
	}
	if !found {
		t.Errorf("no finding says %q:\n%s", want, strings.Join(said(res).Findings, "\n"))
	}
}
