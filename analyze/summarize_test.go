package analyze

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

func summarize(t *testing.T, f analyzetest.Fixture, by ...string) *Result {
	t.Helper()
	dir, _, _ := runFixture(t, f, analyzetest.DefaultOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{By: by})
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	return res
}

func near(p *float64, want float64) bool {
	return p != nil && math.Abs(*p-want) < 1e-9
}

func fmtp(p *float64) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}

func checkDist(t *testing.T, what string, d Dist, n int64, p50, p90, p95, p99 float64) {
	t.Helper()
	if d.N != n || !near(d.P50, p50) || !near(d.P90, p90) || !near(d.P95, p95) || !near(d.P99, p99) {
		t.Errorf("%s = n %d P50 %s P90 %s P95 %s P99 %s; want n %d P50 %v P90 %v P95 %v P99 %v",
			what, d.N, fmtp(d.P50), fmtp(d.P90), fmtp(d.P95), fmtp(d.P99), n, p50, p90, p95, p99)
	}
}

func findSlice(t *testing.T, r *Result, label string) Slice {
	t.Helper()
	for _, s := range r.Slices {
		if s.Label == label {
			return s
		}
	}
	t.Fatalf("no slice %q", label)
	return Slice{}
}

// Client E2E of 1..10 ms: quantile_cont gives P50 5.5, P90 9.1, P95 9.55,
// P99 9.91 (position q*(n-1) between ranks, interpolated linearly).
func TestSummarizePercentiles(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for i := int64(1); i <= 10; i++ {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: fmt.Sprintf("p%02d", i), Start: analyzetest.At(i * 1000), End: analyzetest.At(i*1000 + i),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u",
			Output: analyzetest.Int(10), Line: int(i),
		})
	}
	res := summarize(t, f)
	if len(res.Slices) != 2 || !res.Slices[0].All || res.Slices[1].Label != "model=m, use_case=u" {
		t.Fatalf("slices = %+v", res.Slices)
	}
	for _, s := range res.Slices {
		checkDist(t, s.Label+" client E2E", s.ClientE2E, 10, 5.5, 9.1, 9.55, 9.91)
		if s.ClientTTFT.N != 0 || s.ClientTTFT.P50 != nil {
			t.Errorf("%s: client TTFT of non-streamed requests = %+v, want none", s.Label, s.ClientTTFT)
		}
		// Only the 10 ms request is above P95 (9.55).
		if s.E2ETailN != 1 || !near(s.E2ETailClientE2E, 10) || !near(s.E2ETailThreshold, 9.55) {
			t.Errorf("%s: slowest 5%% n %d mean %s threshold %s", s.Label, s.E2ETailN, fmtp(s.E2ETailClientE2E), fmtp(s.E2ETailThreshold))
		}
		// 100 output tokens over the 9 s between the first and last start.
		if !near(s.ServiceTPS, 100.0/9) || s.CompletedOutputTokens != 100 || !near(s.WindowS, 9) {
			t.Errorf("%s: service-wide tokens/s %s (%d tokens, window %s s)", s.Label, fmtp(s.ServiceTPS), s.CompletedOutputTokens, fmtp(s.WindowS))
		}
		if s.E2E[0].Name != "network" || s.E2E[0].N != 0 || s.E2E[0].P50 != nil {
			t.Errorf("%s: network without gateway records = %+v", s.Label, s.E2E[0])
		}
	}
}

func TestSummarizeStandard(t *testing.T) {
	t.Parallel()
	res := summarize(t, analyzetest.Standard())

	wantCov := Coverage{Requests: 8, Client: 7, Gateway: 8, Server: 7, ClientGateway: 7, GatewayServer: 7, ClientServer: 6, AllTiers: 6}
	if res.Coverage != wantCov || res.Anomalous != 1 || res.Retried != 1 {
		t.Errorf("coverage %+v anomalous %d retried %d", res.Coverage, res.Anomalous, res.Retried)
	}
	if strings.Join(res.By, ",") != "model,use_case" {
		t.Errorf("default By = %v", res.By)
	}

	// Inputs come from manifest.json (the extra field is ignored).
	if len(res.Inputs.Files) != 3 || res.Inputs.Files[1].Format != "nginx" {
		t.Errorf("inputs = %+v", res.Inputs.Files)
	}
	wantTotal := InputFile{Bytes: 4572, Lines: 29, Rows: 24, Rejected: 3, Duplicates: 1, Blank: 1}
	if res.Inputs.Total != wantTotal {
		t.Errorf("input totals = %+v, want %+v", res.Inputs.Total, wantTotal)
	}

	// Rejects: counted by tier/file/kind with locations, never raw text.
	if res.RejectsTotal != 3 || len(res.Rejects) != 3 {
		t.Fatalf("rejects = %+v", res.Rejects)
	}
	if g := res.Rejects[0]; g.Tier != "client" || g.Kind != "syntax" || g.Lines != 1 ||
		len(g.Examples) != 1 || g.Examples[0] != "logs/client.jsonl:7: unexpected end of JSON input" {
		t.Errorf("client rejects = %+v", g)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "SECRET") {
		t.Error("raw rejected text leaked into the result")
	}

	r8 := []string{"r8"}
	wantAnom := []ReasonCount{{"client end before first_token", 1, r8}, {"client end before start", 1, r8}, {"negative network_ms", 1, r8}}
	if fmt.Sprint(res.Anomalies) != fmt.Sprint(wantAnom) {
		t.Errorf("anomalies = %v, want %v", res.Anomalies, wantAnom)
	}

	// Slowest by client E2E: r2 2600, then r1 1300, then r4 and r7 (1000,
	// by ID); r5 has no client record and is not listed.
	var slow []string
	for _, s := range res.Slowest {
		slow = append(slow, fmt.Sprintf("%s:%s", s.RequestID, fmtp(s.ClientE2EMs)))
	}
	if got := strings.Join(slow, " "); got != "r2:2600 r1:1300 r4:1000 r7:1000 r6:800 r3:500 r8:-100" {
		t.Errorf("slowest = %s", got)
	}
	if s := res.Slowest[0]; s.ClientSource != "logs/client.jsonl:2" || s.GatewaySource != "logs/gateway.log:2" ||
		s.ServerSource != "logs/server.jsonl:2" || !near(s.QueueMs, 300) || s.Model != "m1" {
		t.Errorf("slowest[0] = %+v", s)
	}
	if s := res.Slowest[2]; s.ServerSource != "" || s.QueueMs != nil {
		t.Errorf("r4 without a server record: %+v", s)
	}

	// All requests first, then by size, then by value (NULL values last);
	// r5 has no client so no use_case.
	var labels []string
	for _, s := range res.Slices {
		labels = append(labels, fmt.Sprintf("%s(%d)", s.Label, s.Requests))
	}
	if got := strings.Join(labels, " | "); got != "all requests(8) | model=m1, use_case=chat(4) | model=m2, use_case=chat(2) | model=m1, use_case=(none)(1) | model=m2, use_case=batch(1)" {
		t.Errorf("slices = %s", got)
	}

	all := res.Slices[0]
	// Client E2E of r1..r8 without r5: -100 500 800 1000 1000 1300 2600.
	//   P90: position 0.9*6 = 5.4 -> 1300 + 0.4*1300 = 1820
	//   P95: 5.7 -> 1300 + 0.7*1300 = 2210; P99: 5.94 -> 2522
	checkDist(t, "all client E2E", all.ClientE2E, 7, 1000, 1820, 2210, 2522)
	// Server E2E: 60 465 680 765 890 1260 2530.
	//   P90: 5.4 -> 1260 + 0.4*1270 = 1768; P95: 1260 + 0.7*1270 = 2149; P99: 2453.8
	checkDist(t, "all server E2E", all.ServerE2E, 7, 765, 1768, 2149, 2453.8)
	// Client TTFT of streamed requests: 100 150 300 400 500 600 (r3 is not streamed).
	//   P50 350; P90: 4.5 -> 550; P95: 4.75 -> 575; P99: 4.95 -> 595
	checkDist(t, "all client TTFT", all.ClientTTFT, 6, 350, 550, 575, 595)
	// Server TTFT of streamed requests: 30 125 190 250 500 (r4 has no server,
	//   r5 no client to say it streamed). P90: 3.6 -> 250 + 0.6*250 = 400
	checkDist(t, "all server TTFT", all.ServerTTFT, 5, 190, 400, 450, 490)
	// Per-user tokens/s, the tokens after the first over the time after it:
	// r7 49/0.5 = 98, r4 59/0.6 = 98.33, r6 64/0.65 = 98.46, r1 99/1 = 99,
	// r2 279/2 = 139.5 (the 280 tokens its client received). P50 98.46;
	// P90 at rank 3.6 = 99 + 0.6*40.5 = 123.3, P95 = 99 + 0.8*40.5 = 131.4,
	// P99 = 99 + 0.96*40.5 = 137.88.
	checkDist(t, "all tokens/s", all.TPSUser, 5, 64/0.65, 123.3, 131.4, 137.88)

	// Window: r1's client start to r8's client start, 8 s; 705 output tokens.
	if !all.WindowFirst.Equal(analyzetest.Base) || !all.WindowLast.Equal(analyzetest.Base.Add(8*time.Second)) {
		t.Errorf("window %v .. %v", all.WindowFirst, all.WindowLast)
	}
	if all.CompletedOutputTokens != 705 || all.CompletedRequests != 8 || !near(all.ServiceTPS, 705.0/8) {
		t.Errorf("service-wide: %d tokens, %d requests, %s tokens/s", all.CompletedOutputTokens, all.CompletedRequests, fmtp(all.ServiceTPS))
	}

	// The slowest 5% of all requests is r2 (2600 > 2210).
	if all.E2ETailN != 1 || !near(all.E2ETailClientE2E, 2600) {
		t.Errorf("all: slowest 5%% n %d mean %s", all.E2ETailN, fmtp(all.E2ETailClientE2E))
	}
	wantTail := map[string]float64{"network": 27, "application": 43, "queue": 300, "model": 2230}
	for _, c := range all.E2E[:4] {
		if !near(c.TailMean, wantTail[c.Name]) || c.TailN != 1 || c.N != 7 {
			t.Errorf("all %s: n %d tail n %d mean %s, want n 7 tail n 1 mean %v", c.Name, c.N, c.TailN, fmtp(c.TailMean), wantTail[c.Name])
		}
	}
	// Network: -180 10 10 20 20 27 295 -> P50 20, P95 at 5.7: 27 + 0.7*268 = 214.6
	if c := all.E2E[0]; !near(c.P50, 20) || !near(c.P95, 214.6) {
		t.Errorf("all network P50 %s P95 %s", fmtp(c.P50), fmtp(c.P95))
	}
	// TTFT network of streamed requests with all tiers: 5 35 55 62 290.
	if c := all.TTFT[0]; c.N != 5 || !near(c.P50, 55) {
		t.Errorf("all ttft network n %d P50 %s", c.N, fmtp(c.P50))
	}
	// r4 has no server record: its gateway E2E, 3990 - 3010 = 980 ms, is
	// application + queue + model not split (r4 is not in the slowest 5%),
	// and its whole client TTFT, 400 ms, is not split either (TTFT network
	// needs the server's TTFT). No request lacks only the gateway or has
	// only a client: no other not-split component.
	if len(all.E2E) != 5 || len(all.TTFT) != 5 {
		t.Fatalf("all: %d E2E and %d TTFT components, want 4 and one not split each", len(all.E2E), len(all.TTFT))
	}
	if c := all.E2E[4]; c.Name != "upstream (not split)" || c.NotSplit != "application + queue + model" || c.Missing != "server" ||
		c.N != 1 || !near(c.P50, 980) || c.TailN != 0 || c.TailMean != nil {
		t.Errorf("all E2E not split: %+v", c)
	}
	if c := all.TTFT[4]; c.Name != "all (not split)" || c.NotSplit != "network + application + queue + model" || c.Missing != "server" ||
		c.N != 1 || !near(c.P50, 400) {
		t.Errorf("all TTFT not split: %+v", c)
	}
	// Slowest 5% by client TTFT: r2 (600 > 575), TTFT model 200 is largest.
	if all.TTFTTailN != 1 || !near(all.TTFTTailClientTTFT, 600) || !near(all.TTFT[3].TailMean, 200) {
		t.Errorf("all TTFT tail n %d mean %s model %s", all.TTFTTailN, fmtp(all.TTFTTailClientTTFT), fmtp(all.TTFT[3].TailMean))
	}

	// m1/chat: r1 r2 r4 r6 -> client E2E 800 1000 1300 2600: P50 1150,
	//   P95 at 2.85: 1300 + 0.85*1300 = 2405.
	m1 := findSlice(t, res, "model=m1, use_case=chat")
	if !near(m1.ClientE2E.P50, 1150) || !near(m1.ClientE2E.P95, 2405) || m1.ClientE2E.N != 4 {
		t.Errorf("m1/chat client E2E %+v", m1.ClientE2E)
	}
	// From n=4 that P95 is never quoted, nor its slowest 5% attributed.
	if !containsText(saidOf(res, m1.Label), "In model=m1, use_case=chat, client E2E has n too small for a P95 (n=4): its slowest 5% are not singled out.") ||
		containsText(saidOf(res, m1.Label), "2405.0") {
		t.Errorf("the m1/chat slice's findings quote its P95 from n=4:\n%s", strings.Join(saidOf(res, m1.Label), "\n"))
	}
	// Sentences about one slice stay with that slice.
	if containsText(said(res).Findings, "In model=m1, use_case=chat") {
		t.Errorf("a slice's finding is among the report-wide findings:\n%s", strings.Join(said(res).Findings, "\n"))
	}
	if !containsText(said(res).Findings, "1 of 8 requests have no server record") {
		t.Errorf("findings lack the coverage gap:\n%s", strings.Join(said(res).Findings, "\n"))
	}
}

func containsText(list []string, s string) bool {
	for _, l := range list {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// When client time grows while model time stays flat, the findings say so
// and point at queueing (20 requests, the fewest a P95 needs).
func TestSummarizeFlatModelFinding(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	qs := make([]int64, 20)
	qs[17], qs[18], qs[19] = 800, 900, 1000
	for i, q := range qs {
		s := int64(i) * 10000
		id := fmt.Sprintf("q%d", i)
		// client_e2e = q+106, network 2, application 4, queue q, model 100.
		f.Clients = append(f.Clients, analyzetest.Client{ID: id, Start: analyzetest.At(s), End: analyzetest.At(s + q + 106),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u", Line: i + 1})
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: analyzetest.At(s + 1), UpstreamStart: analyzetest.At(s + 2),
			UpstreamEnd: analyzetest.At(s + q + 104), End: analyzetest.At(s + q + 105), Line: i + 1})
		f.Servers = append(f.Servers, analyzetest.Server{ID: id, Arrival: analyzetest.At(s + 3), Scheduled: analyzetest.At(s + 3 + q),
			FirstToken: analyzetest.At(s + 13 + q), End: analyzetest.At(s + 103 + q), Model: "m", Line: i + 1})
	}
	res := summarize(t, f, "model")
	// Client E2E 17 × 106, then 906 1006 1106: P50 106, P95 at rank
	// 0.95 × 19 = 18.05: 1006 + 0.05 × 100 = 1011; model 100 throughout.
	// The slowest 5%: the one request above 1011 (1106, queue 1000).
	want := "In model=m, client E2E grows from 106.0 ms at P50 to 1011.0 ms at P95 while model time stays flat (100.0 ms to 100.0 ms)"
	m := findSlice(t, res, "model=m")
	if !containsText(saidOf(res, m.Label), want) || !containsText(saidOf(res, m.Label), "spend the most time in queue: mean over the slowest 5% 1000.0 ms of 1106.0 ms mean client E2E") {
		t.Errorf("findings of model=m:\n%s", strings.Join(saidOf(res, m.Label), "\n"))
	}
	// The same holds for all requests, which lead the report-wide findings.
	if !containsText(said(res).Findings, "In all requests, client E2E grows from 106.0 ms at P50 to 1011.0 ms at P95 while model time stays flat") {
		t.Errorf("findings:\n%s", strings.Join(said(res).Findings, "\n"))
	}
}

func TestSummarizeBy(t *testing.T) {
	t.Parallel()
	res := summarize(t, analyzetest.Standard(), "streamed", "status")
	var labels []string
	for _, s := range res.Slices {
		labels = append(labels, fmt.Sprintf("%s(%d)", s.Label, s.Requests))
	}
	if got := strings.Join(labels, " | "); got != "all requests(8) | streamed=true, status=200(6) | streamed=false, status=200(1) | streamed=(none), status=200(1)" {
		t.Errorf("slices = %s", got)
	}
}

func TestSummarizeRejectsUnknownBy(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	for _, by := range [][]string{{"prompt"}, {"model", "model); DROP TABLE requests; --"}} {
		_, err := summarize1(context.Background(), dir, SummaryOptions{By: by})
		if err == nil || !strings.Contains(err.Error(), "allowed are model, use_case, streamed, client, region, gateway") {
			t.Errorf("By %q: error = %v", by, err)
		}
	}
}

func TestSummarizeNeedsRequests(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":1,"files":[]}`), 0o644)
	_, err := summarize1(context.Background(), dir, SummaryOptions{})
	if want := dir + " holds no requests.parquet: run infertrace analyze " + dir + " first"; err == nil || err.Error() != want {
		t.Errorf("error = %v", err)
	}
}

// requests.parquet and manifest.json must come from one ingest: after a new
// manifest (another ingest into the directory), Summarize refuses until Run
// analyzes again; a requests.parquet without the record is refused too.
func TestSummarizeStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	manifest := filepath.Join(dir, "manifest.json")
	b, _ := os.ReadFile(manifest)
	os.WriteFile(manifest, bytes.Replace(b, []byte(`"version":1`), []byte(`"version":1,"run_id":"another"`), 1), 0o644)
	_, err := summarize1(ctx, dir, SummaryOptions{})
	if !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), "run infertrace analyze "+dir+" again") {
		t.Errorf("after a new manifest: got %v", err)
	}
	if _, err := RunWith(ctx, dir, duck.Resources{Threads: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := summarize1(ctx, dir, SummaryOptions{}); err != nil {
		t.Errorf("after analyzing again: %v", err)
	}

	// A requests.parquet that records no manifest (written by hand, or by
	// an earlier infertrace).
	db, err := openMemory1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	req := filepath.Join(dir, RequestsFile)
	if _, err := db.ExecContext(ctx, "COPY (SELECT * FROM read_parquet("+duck.Quote(req)+")) TO "+duck.Quote(req+".plain")+" (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	os.Rename(req+".plain", req)
	if _, err := summarize1(ctx, dir, SummaryOptions{}); !errors.Is(err, ErrStale) {
		t.Errorf("requests.parquet without a manifest record: got %v", err)
	}
}

// The slowest 5% is taken per row of the report: a slice's tail is above
// that slice's P95 client E2E, the all-requests tail above the P95 of all
// requests. Slices a and (none) have 1..10 ms (P95 9.55: tail {10}), b has
// 101..110 ms (P95 109.55: tail {110}), s one request of 50 ms (nothing
// above its P95). All 31 requests: P95 at position 0.95*30 = 28.5 between
// 108 and 109, 108.5: tail {109, 110}.
func TestSummarizeTailPerRow(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	add := func(id, model string, ms int64) {
		n := int64(len(f.Clients) + 1)
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: id, Start: analyzetest.At(n * 1000), End: analyzetest.At(n*1000 + ms),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: model, UseCase: "u",
			Output: analyzetest.Int(10), Line: int(n),
		})
	}
	for i := int64(1); i <= 10; i++ {
		add(fmt.Sprintf("a%02d", i), "a", i)
		add(fmt.Sprintf("b%02d", i), "b", 100+i)
		add(fmt.Sprintf("n%02d", i), "", i)
	}
	add("single", "s", 50)
	res := summarize(t, f)
	want := []struct {
		label     string
		threshold float64
		n         int64
		mean      float64 // NaN: none
	}{
		{"all requests", 108.5, 2, 109.5},
		{"model=a, use_case=u", 9.55, 1, 10},
		{"model=b, use_case=u", 109.55, 1, 110},
		{"model=(none), use_case=u", 9.55, 1, 10},
		{"model=s, use_case=u", 50, 0, math.NaN()},
	}
	if len(res.Slices) != len(want) {
		t.Fatalf("%d slices, want %d", len(res.Slices), len(want))
	}
	for _, w := range want {
		s := findSlice(t, res, w.label)
		meanOK := near(s.E2ETailClientE2E, w.mean) || (math.IsNaN(w.mean) && s.E2ETailClientE2E == nil)
		if !near(s.E2ETailThreshold, w.threshold) || s.E2ETailN != w.n || !meanOK {
			t.Errorf("%s: slowest 5%% above %s: n %d mean %s; want above %v: n %d mean %v",
				w.label, fmtp(s.E2ETailThreshold), s.E2ETailN, fmtp(s.E2ETailClientE2E), w.threshold, w.n, w.mean)
		}
		if s.E2ETailServerN != 0 || s.E2ETailServerE2E != nil || s.TTFTTailN != 0 || s.TTFTTailClientTTFT != nil {
			t.Errorf("%s: server tail n %d mean %s, TTFT tail n %d mean %s; want none",
				w.label, s.E2ETailServerN, fmtp(s.E2ETailServerE2E), s.TTFTTailN, fmtp(s.TTFTTailClientTTFT))
		}
	}
}
