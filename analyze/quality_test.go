package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
)

// contractFixture: six streamed chat requests, all tiers, 11 output tokens
// and 1000 prompt tokens each, one second apart. On the true timeline each
// spends 5 ms client→gateway, 5 ms in the gateway before and after the
// upstream, 5 ms gateway→client, and its first token reaches the client 5 ms
// after the server made it; so client E2E = 20 + queue + prefill + decode,
// client TTFT = 15 + queue + prefill, TTFT network 10, TTFT application 5.
//
//	id  model queue prefill decode  E2E  TTFT  status
//	c1  m1      10    100     200   330   125   200
//	c2  m1      10    100     200   330   125   200
//	c3  m1     500    100     200   820   615   200
//	c4  m2      10    600     200   830   625   200
//	c5  m2      10    100     200   330   125   500
//	c6  m2      10    100     700   830   125   200
func contractFixture() analyzetest.Fixture {
	var f analyzetest.Fixture
	type spec struct {
		id, model              string
		queue, prefill, decode int64
		status                 int
	}
	for i, s := range []spec{
		{"c1", "m1", 10, 100, 200, 200},
		{"c2", "m1", 10, 100, 200, 200},
		{"c3", "m1", 500, 100, 200, 200},
		{"c4", "m2", 10, 600, 200, 200},
		{"c5", "m2", 10, 100, 200, 500},
		{"c6", "m2", 10, 100, 700, 200},
	} {
		t0 := int64(i) * 1000
		arrival := t0 + 10
		sched := arrival + s.queue
		ft := sched + s.prefill
		end := ft + s.decode
		at := analyzetest.At
		f.Clients = append(f.Clients, analyzetest.Client{ID: s.id, Start: at(t0), FirstToken: at(ft + 5), End: at(end + 10),
			Status: analyzetest.Int(s.status), Streamed: analyzetest.Bool(true), Model: s.model, UseCase: "chat",
			PromptTokens: analyzetest.Int(1000), Output: analyzetest.Int(11), Line: i + 1})
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: s.id, Start: at(t0 + 5), UpstreamStart: at(arrival), UpstreamEnd: at(end),
			End: at(end + 5), Status: analyzetest.Int(s.status), Line: i + 1})
		f.Servers = append(f.Servers, analyzetest.Server{ID: s.id, Arrival: at(arrival), Scheduled: at(sched), FirstToken: at(ft), End: at(end),
			Model: s.model, Replica: s.model + "-0", PromptTokens: analyzetest.Int(1000), Output: analyzetest.Int(11),
			Status: analyzetest.Int(s.status), Line: i + 1})
	}
	return f
}

// The contract of the fixture: chat (by model) with quality first; m1 on
// E2E alone; tail with a P99 from six requests.
const fixtureContract = `
[[use_case]]
name = "chat"
by = ["model"]
  [[use_case.constraint]]
  metric = "eval_pass_rate"
  op = ">="
  target = "80%"
  [[use_case.constraint]]
  metric = "client_ttft_ms"
  percentile = 50
  op = "<="
  target = 200
  [[use_case.constraint]]
  metric = "client_e2e_ms"
  percentile = 50
  op = "<="
  target = "500ms"
  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = 0.1
  [[use_case.constraint]]
  metric = "cost_per_1k_requests"
  op = "<="
  target = "$3"

[[use_case]]
name = "m1 latency"
match = { model = "m1" }
  [[use_case.constraint]]
  metric = "client_e2e_ms"
  percentile = 50
  op = "<="
  target = 500

[[use_case]]
name = "tail"
match = { use_case = "chat" }
  [[use_case.constraint]]
  metric = "client_e2e_ms"
  percentile = 99
  op = "<="
  target = 1000
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func summarizeContract(t *testing.T, evals, evalsName string) *Result {
	t.Helper()
	dir, _, _ := runFixture(t, contractFixture(), analyzetest.DefaultOffsets)
	tmp := t.TempDir()
	c, err := contract.Load(writeFile(t, tmp, "contract.toml", fixtureContract), SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	// m1: $1 per million prompt tokens, $2 per million output tokens:
	// 1000 x 1 + 11 x 2 = 1022 µ$ per request; m2: 1000 x 3 + 11 x 4 = 3044.
	prices := writeFile(t, tmp, "prices.csv", "model,input_per_mtok,output_per_mtok\nm1,1,2\nm2,3,4\n")
	res, err := summarize1(context.Background(), dir, SummaryOptions{
		Contract: c, Evals: writeFile(t, tmp, evalsName, evals), Prices: prices})
	if err != nil {
		t.Fatalf("Summarize: %v", err)
	}
	return res
}

func findCase(t *testing.T, r *Result, name, slice string) CaseResult {
	t.Helper()
	for _, c := range r.Contract.Cases {
		if c.Name == name && c.Slice == slice {
			return c
		}
	}
	t.Fatalf("no case %q slice %q", name, slice)
	return CaseResult{}
}

func nearTol(p *float64, want, tol float64) bool {
	return p != nil && math.Abs(*p-want) < tol
}

// Evals: c1, c2, c4 pass, c3 fails, c5 and c6 are not evaluated, and zz
// is no request of the run.
const fixtureEvalsCSV = "request_id,eval,score,pass\nc1,q,0.9,true\nc2,q,0.8,yes\nc3,q,0.2,false\nc4,q,1,1\nzz,q,0.5,true\n"

func TestContractFixture(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, file, evals string }{
		{"csv", "evals.csv", fixtureEvalsCSV},
		{"jsonl", "evals.jsonl", `{"request_id":"c1","eval":"q","score":0.9,"pass":true}
{"request_id":"c2","eval":"q","score":0.8,"pass":true}
{"request_id":"c3","eval":"q","score":0.2,"pass":false}
{"request_id":"c4","eval":"q","score":1,"pass":true}
{"request_id":"zz","eval":"q","score":0.5,"pass":true}
`},
		{"parquet", "evals.parquet", evalsParquet(t, fixtureEvalsCSV)},
	} {
		t.Run(tc.name, func(t *testing.T) { checkContractFixture(t, summarizeContract(t, tc.evals, tc.file)) })
	}
}

// evalsParquet returns csv as the bytes of a Parquet file with typed
// columns (eval VARCHAR, score DOUBLE, pass BOOLEAN), as an evaluation
// pipeline would write it.
func evalsParquet(t *testing.T, csv string) string {
	t.Helper()
	dir := t.TempDir()
	in, out := writeFile(t, dir, "in.csv", csv), filepath.Join(dir, "out.parquet")
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := "COPY (SELECT request_id, eval, score::DOUBLE AS score, pass::BOOLEAN AS pass FROM read_csv(" + duck.Quote(in) +
		", header = true, all_varchar = true)) TO " + duck.Quote(out) + " (FORMAT parquet)"
	if _, err := db.Exec(q); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkContractFixture(t *testing.T, res *Result) {
	if e := res.Evals; e == nil || e.Rows != 5 || e.Requests != 5 || e.Unmatched != 1 || len(e.UnmatchedExamples) != 1 || e.UnmatchedExamples[0] != "zz" {
		t.Errorf("evals join = %+v, want 5 rows, 5 IDs, 1 unmatched (zz)", res.Evals)
	}
	chat := findCase(t, res, "chat", "")
	if chat.Requests != 6 || chat.Completed != 5 || chat.Evaluated != 4 || chat.Priced != 6 || !near(chat.WindowS, 5) {
		t.Errorf("chat: %d requests, %d completed, %d evaluated, %d priced, window %s s; want 6, 5, 4, 6, 5",
			chat.Requests, chat.Completed, chat.Evaluated, chat.Priced, fmtp(chat.WindowS))
	}
	// Quality comes first and fails: 3 of 4 evaluated passed, 75% < 80%.
	if chat.Verdict != "fail" || chat.FirstFail != 0 {
		t.Errorf("chat verdict %s, first fail %d; want fail on constraint 0", chat.Verdict, chat.FirstFail)
	}
	want := []struct {
		verdict string
		n       int64
		value   float64
	}{
		{"fail", 4, 0.75},    // eval pass rate 3/4
		{"pass", 6, 125},     // TTFT 125,125,125,125,615,625: P50 (125+125)/2
		{"fail", 6, 575},     // E2E 330,330,330,820,830,830: P50 (330+820)/2
		{"fail", 6, 1.0 / 6}, // one error of six
		{"pass", 6, 2.033},   // 1000 x mean(1022, 1022, 1022, 3044, 3044, 3044) µ$
	}
	if len(chat.Constraints) != len(want) {
		t.Fatalf("chat has %d constraints, want %d", len(chat.Constraints), len(want))
	}
	for i, w := range want {
		k := chat.Constraints[i]
		if k.Verdict != w.verdict || k.N != w.n || !nearTol(k.Value, w.value, 1e-9) {
			t.Errorf("chat constraint %d (%s): %s n=%d value %s; want %s n=%d value %v", i+1, k.Title, k.Verdict, k.N, fmtp(k.Value), w.verdict, w.n, w.value)
		}
	}
	// Wilson 95% of 3/4: [0.3006, 0.9544]; of 1/6: [0.0301, 0.5635].
	if k := chat.Constraints[0]; !nearTol(k.CILo, 0.30064, 1e-4) || !nearTol(k.CIHi, 0.95441, 1e-4) || k.Decided == nil || *k.Decided {
		t.Errorf("eval pass rate interval [%s, %s] decided %v; want [0.3006, 0.9544], not decided", fmtp(k.CILo), fmtp(k.CIHi), k.Decided)
	}
	if k := chat.Constraints[3]; !nearTol(k.CILo, 0.03005, 1e-4) || !nearTol(k.CIHi, 0.56350, 1e-4) {
		t.Errorf("error rate interval [%s, %s]; want [0.0301, 0.5635]", fmtp(k.CILo), fmtp(k.CIHi))
	}
	// P50 of 6: ranks floor(3 - 1.96 x 1.2247) = 0 and ceil(3 + 2.40) + 1
	// = 7 are outside 1..6: both bounds open.
	if k := chat.Constraints[1]; k.CILo != nil || k.CIHi != nil || k.Decided != nil {
		t.Errorf("TTFT P50 interval [%s, %s]; want open at n=6", fmtp(k.CILo), fmtp(k.CIHi))
	}
	// Goodput: c1 and c2 meet TTFT <= 200 and E2E <= 500; c3, c4 miss
	// TTFT, c6 misses E2E, c5 failed. 2 of 6, over 5 s.
	g := chat.Goodput
	if g.Targets != 2 || g.Good != 2 || g.Missed != 4 || g.Unknown != 0 || g.Error != 1 || !nearTol(g.Share, 1.0/3, 1e-9) || !nearTol(g.PerS, 0.4, 1e-9) {
		t.Errorf("chat goodput = %+v (share %s, per s %s); want 2 targets, 2 good, 4 missed (1 error), 1/3, 0.4/s", g, fmtp(g.Share), fmtp(g.PerS))
	}
	if !nearTol(g.Lo, 0.09677, 1e-4) || !nearTol(g.Hi, 0.70001, 1e-4) {
		t.Errorf("goodput interval [%s, %s]; want Wilson [0.0968, 0.7000]", fmtp(g.Lo), fmtp(g.Hi))
	}
	// Why: c3's TTFT queue is 490 ms above the median (10), c4's prefill
	// 500 above (100), c6's model 500 above (300) of which decode 500
	// above (200) and prefill 0; c5 is an error.
	causes := fmt.Sprint(chat.Causes)
	if causes != "[{error 1} {model (decode) 1} {model (prefill) 1} {queue 1}]" {
		t.Errorf("chat causes = %s", causes)
	}

	m1 := findCase(t, res, "chat", "model=m1")
	if m1.Requests != 3 || m1.Constraints[0].Verdict != "fail" || !nearTol(m1.Constraints[0].Value, 2.0/3, 1e-9) || m1.Constraints[0].N != 3 {
		t.Errorf("chat model=m1: %d requests, eval pass %s %s of %d; want 3, fail 2/3 of 3", m1.Requests, m1.Constraints[0].Verdict, fmtp(m1.Constraints[0].Value), m1.Constraints[0].N)
	}
	if m1.Goodput.Good != 2 || m1.Goodput.Missed != 1 || fmt.Sprint(m1.Causes) != "[{queue 1}]" {
		t.Errorf("chat model=m1 goodput %+v causes %v; want 2 good, 1 missed by queue", m1.Goodput, m1.Causes)
	}
	m2 := findCase(t, res, "chat", "model=m2")
	if k := m2.Constraints[0]; k.Verdict != "pass" || k.N != 1 || !nearTol(k.Value, 1, 1e-9) {
		t.Errorf("chat model=m2 eval pass: %s n=%d %s; want pass n=1 (c5, c6 not evaluated) 1", k.Verdict, k.N, fmtp(k.Value))
	}
	if k := m2.Constraints[4]; !nearTol(k.Value, 3.044, 1e-9) {
		t.Errorf("chat model=m2 cost per 1k = %s, want 3.044", fmtp(k.Value))
	}

	if c := findCase(t, res, "m1 latency", ""); c.Verdict != "pass" || c.Requests != 3 || !nearTol(c.Constraints[0].Value, 330, 1e-9) || c.Match != "model=m1" {
		t.Errorf("m1 latency: %s, %d requests, P50 %s, match %q; want pass, 3, 330, model=m1", c.Verdict, c.Requests, fmtp(c.Constraints[0].Value), c.Match)
	}
	if c := findCase(t, res, "tail", ""); c.Verdict != "incomplete" || c.Constraints[0].Verdict != "n too small" || c.Constraints[0].N != 6 {
		t.Errorf("tail: %s, P99 %s n=%d; want incomplete, n too small at 6", c.Verdict, c.Constraints[0].Verdict, c.Constraints[0].N)
	}

	// Headlines: one per use case, before the others, chat's quality fail first.
	if len(said(res).Headlines) < 3 || said(res).Headlines[0].Topic != "Does each use case meet its contract" ||
		!strings.HasPrefix(said(res).Headlines[0].Text, "chat FAILS on its first constraint, quality") ||
		!strings.HasPrefix(said(res).Headlines[1].Text, "m1 latency meets its contract") ||
		!strings.HasPrefix(said(res).Headlines[2].Text, "tail cannot be judged") {
		t.Errorf("headlines = %q", said(res).Headlines[:3])
	}

	// Per slice (model, use_case): m1/chat 2 of 3 evaluated passed, m2/chat 1 of 1.
	s := findSlice(t, res, "model=m1, use_case=chat")
	if q := s.Quality; q.Evaluated != 3 || q.EvalPassK != 2 || q.EvalPassN != 3 || !nearTol(q.EvalPassLo, 0.20766, 1e-4) || q.Priced != 3 || !nearTol(q.CostPer1K, 1.022, 1e-9) {
		t.Errorf("m1/chat quality = %+v", q)
	}
	s = findSlice(t, res, "model=m2, use_case=chat")
	if q := s.Quality; q.Evaluated != 1 || q.EvalPassK != 1 || !nearTol(q.CostPer1K, 3.044, 1e-9) || !nearTol(q.EvalScore, 1, 1e-9) {
		t.Errorf("m2/chat quality = %+v", q)
	}
	// Cost per successful request: m1/chat's 3 priced requests all
	// completed, so it is their mean, 1.022 / 1000; m2/chat's 3 cost 3.044 /
	// 1000 on average and c5 failed, so their total is shared by 2.
	if q := findSlice(t, res, "model=m1, use_case=chat").Quality; !nearTol(q.CostPerSuccess, 1.022/1000, 1e-12) {
		t.Errorf("m1/chat cost per successful request = %s, want %v", fmtp(q.CostPerSuccess), 1.022/1000)
	}
	if q := findSlice(t, res, "model=m2, use_case=chat").Quality; q.Priced != 3 || !nearTol(q.CostPerSuccess, 3*3.044/1000/2, 1e-12) {
		t.Errorf("m2/chat cost per successful request = %s (%d priced), want %v", fmtp(q.CostPerSuccess), q.Priced, 3*3.044/1000/2)
	}
	if q := res.Slices[0].Quality; q.Evaluated != 4 || q.EvalPassK != 3 || !nearTol(q.EvalScore, (0.9+0.8+0.2+1)/4, 1e-9) {
		t.Errorf("all requests quality = %+v", q)
	}
}

// A bad evals file is refused with the file and the rows at fault.
func TestEvalsErrors(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, contractFixture(), analyzetest.DefaultOffsets)
	tmp := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"bad.csv", "request_id,score\nc1,0.5\nc2,abc\n", "bad.csv: row 2: score abc is not a finite number"},
		{"dup.csv", "request_id,pass\nc1,true\nc2,maybe\nc1,false\n", "row 2: pass maybe is not true or false; row 3: request c1 has a second row for the unnamed eval (the first is row 1)"},
		{"nocol.csv", "id,pass\nc1,true\n", "nocol.csv: no request_id column (columns: id, pass)"},
		{"noscore.csv", "request_id,eval\nc1,q\n", "no score or pass column"},
	} {
		err := judge1(context.Background(), dir, SummaryOptions{Evals: writeFile(t, tmp, tc.name, tc.content)})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	// Summarize returns the error of the check as it is.
	_, err := summarize1(context.Background(), dir, SummaryOptions{Prices: writeFile(t, tmp, "p.csv", "model,input_per_mtok,output_per_mtok,gpu_hour,replicas\nm1,1,2,3,1\nm2,-1,2,,\n")})
	if err == nil || !strings.Contains(err.Error(), "row 1: model m1: give input_per_mtok and output_per_mtok, or gpu_hour and replicas, not both; row 2: input_per_mtok -1 is not a price") {
		t.Errorf("prices: error %v", err)
	}
}

// GPU-hour prices: the model's replicas over its span, shared equally. m2's
// requests start at 3, 4 and 5 s and end 830, 330 and 830 ms later on the
// client: span 3 s to 5.83 s = 2.83 s; 2 replicas at $3.6/h cost
// 2 x 3.6 x 2.83 / 3600 = $0.00566, or $0.0018867 per request.
func TestGPUHourPrices(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, contractFixture(), analyzetest.DefaultOffsets)
	tmp := t.TempDir()
	res, err := summarize1(context.Background(), dir, SummaryOptions{
		Prices: writeFile(t, tmp, "p.csv", "model,gpu_hour,replicas\nm2,3.6,2\n")})
	if err != nil {
		t.Fatal(err)
	}
	s := findSlice(t, res, "model=m2, use_case=chat")
	if q := s.Quality; q.Priced != 3 || !nearTol(q.CostSum, 2*3.6*2.83/3600, 1e-9) {
		t.Errorf("m2 cost = %+v (sum %s), want 3 priced, sum %v", q, fmtp(q.CostSum), 2*3.6*2.83/3600)
	}
	if q := findSlice(t, res, "model=m1, use_case=chat").Quality; q.Priced != 0 || q.CostPer1K != nil {
		t.Errorf("m1 has no price: quality %+v, want no cost", q)
	}
	if res.Evals != nil {
		t.Errorf("no evals given, Evals = %+v", res.Evals)
	}
}
