package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
)

// renderJSONMap renders r as report.json and decodes it generically, as a
// program reading the file would.
func renderJSONMap(t *testing.T, r *analyze.Result) (map[string]any, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, "json", r, nil); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("report.json does not decode: %v", err)
	}
	return m, buf.Bytes()
}

// validateSchema checks doc against docs/report.schema.json, formats
// (date-time) asserted.
func validateSchema(t *testing.T, doc []byte) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", "report.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("report.schema.json", schemaDoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatalf("docs/report.schema.json: %v", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("report.json does not match docs/report.schema.json: %v", err)
	}
}

func TestJSONGolden(t *testing.T) {
	t.Parallel()
	_, got := renderJSONMap(t, standardResult(t))
	golden := filepath.Join("testdata", "standard.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		p := filepath.Join(t.TempDir(), "standard.json")
		os.WriteFile(p, got, 0o644)
		t.Errorf("report.json differs from %s (got written to %s; run go test ./report -update if the change is intended)", golden, p)
	}
}

// The JSON of the golden fixture, and of a result with a contract and
// percentiles with enough samples, matches the documented schema.
func TestJSONSchema(t *testing.T) {
	t.Parallel()
	_, doc := renderJSONMap(t, standardResult(t))
	validateSchema(t, doc)
	_, doc = renderJSONMap(t, jsonContractResult())
	validateSchema(t, doc)

	// The schema rejects what it should: a percentile as a string, a
	// missing key.
	var m map[string]any
	json.Unmarshal(doc, &m)
	m["slices"].([]any)[0].(map[string]any)["metrics"].(map[string]any)["client_e2e"].(map[string]any)["p95"] = "1000.0"
	bad, _ := json.Marshal(m)
	if err := validateAgainst(bad); err == nil {
		t.Error("the schema accepts a percentile as a string")
	}
	delete(m, "schema_version")
	bad, _ = json.Marshal(m)
	if err := validateAgainst(bad); err == nil {
		t.Error("the schema accepts a report.json without schema_version")
	}
}

func validateAgainst(doc []byte) error {
	f, err := os.Open(filepath.Join("..", "docs", "report.schema.json"))
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", s); err != nil {
		return err
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// jsonContractResult is the standard figures of a made-up result with enough
// samples for every percentile and a contract judged.
func jsonContractResult() *analyze.Result {
	p := func(v float64) *float64 { return &v }
	k := int64(3)
	yes := true
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	end := at.Add(time.Hour)
	d := analyze.Dist{N: 200, P50: p(400), P90: p(700), P95: p(812.5), P99: p(1500),
		P95CI: analyze.Interval{Lo: p(780), Hi: p(850)}, P99CI: analyze.Interval{Lo: p(1200)}}
	return &analyze.Result{
		By:       []string{"model"},
		Coverage: analyze.Coverage{Requests: 200, Client: 200},
		Window:   analyze.Window{From: at},
		Slices: []analyze.Slice{
			{All: true, Label: "all requests", Requests: 200, Failed: 4, Succeeded: 196, WindowFirst: &at, WindowLast: &end,
				Failures:  []analyze.OutcomeCount{{Outcome: "500", Requests: 3}, {Outcome: "429", Requests: 1}},
				ClientE2E: d, ClientTTFT: d,
				E2E: []analyze.Component{{Name: "queue", Column: "queue_ms", N: 200, P50: p(5), P95: p(40), P95CI: analyze.Interval{Lo: p(30), Hi: p(55)}, TailN: 10, TailMean: p(45)},
					{Name: "upstream (not split)", N: 3, NotSplit: "application + queue + model", Missing: "server", Small: [2]bool{false, true}, P50: p(900), P95: p(990)}}},
		},
		Phases: []analyze.Phase{{Name: "cold", Requests: 2, Episodes: 1, WindowFirst: &at, WindowLast: &at}, {Name: "burst"}, {Name: "steady", Requests: 198}},
		Contract: &analyze.ContractResult{File: "contract.yaml", Cases: []analyze.CaseResult{{
			Name: "chat", Match: "use_case=chat", Requests: 200, Completed: 196, WindowFirst: &at, WindowLast: &end, Verdict: "fail", FirstFail: 0,
			Constraints: []analyze.ConstraintResult{
				{Constraint: contract.Constraint{Kind: "latency", Metric: "client_ttft", Percentile: 95, Op: "<=", Target: 800}, Title: "client TTFT", Unit: "ms",
					N: 200, Value: p(812.5), CILo: p(780), CIHi: p(850), Verdict: "fail", Decided: new(bool)},
				{Constraint: contract.Constraint{Kind: "reliability", Metric: "error_rate", Op: "<=", Target: 0.01}, Title: "error rate", Unit: "share",
					N: 200, K: &k, Value: p(0.015), CILo: p(0.005), CIHi: p(0.04), Verdict: "pass", Decided: &yes},
			},
			Goodput: analyze.Goodput{Targets: 1, Good: 150, Missed: 46, Error: 4, Share: p(150.0 / 196), Lo: p(0.7), Hi: p(0.82), PerS: p(150.0 / 3600)},
		}}},
	}
}

// num reads a JSON number, nil for null.
func num(t *testing.T, v any, where string) *float64 {
	t.Helper()
	if v == nil {
		return nil
	}
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%s: %v (%T) is not a number", where, v, v)
	}
	f, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return &f
}

func obj(v any) map[string]any { return v.(map[string]any) }

// Every percentile and n in report.json is the Result's, or null where
// the report shows "n too small".
func TestJSONFiguresAreResult(t *testing.T) {
	t.Parallel()
	for _, res := range []*analyze.Result{standardResult(t), jsonContractResult(), contractResult(t)} {
		m, _ := renderJSONMap(t, res)
		slices := m["slices"].([]any)
		if len(slices) != len(res.Slices) {
			t.Fatalf("%d slices in JSON, %d in the result", len(slices), len(res.Slices))
		}
		for i, s := range res.Slices {
			js := obj(slices[i])
			if js["label"] != s.Label {
				t.Errorf("slice %d label %v, want %q", i, js["label"], s.Label)
			}
			metrics := obj(js["metrics"])
			for name, d := range map[string]analyze.Dist{"client_e2e": s.ClientE2E, "gateway_e2e": s.GatewayE2E, "server_e2e": s.ServerE2E,
				"client_ttft": s.ClientTTFT, "server_ttft": s.ServerTTFT, "gateway_ttft": s.GatewayTTFT,
				"gateway_upstream_ttfb": s.GatewayUpstreamTTFB, "tps_user": s.TPSUser} {
				checkDist(t, s.Label+" "+name, obj(metrics[name]), d)
			}
			comps := obj(js["components"])
			for name, cs := range map[string][]analyze.Component{"e2e": s.E2E, "e2e_split": s.ServerSplit, "ttft": s.TTFT, "ttft_split": s.TTFTSplit} {
				jc := comps[name].([]any)
				if len(jc) != len(cs) {
					t.Errorf("%s %s: %d components, want %d", s.Label, name, len(jc), len(cs))
					continue
				}
				for k, c := range cs {
					checkDist(t, s.Label+" "+name+" "+c.Name, obj(jc[k]),
						analyze.Dist{N: c.N, P50: c.P50, P95: c.P95, P95CI: c.P95CI, Small: [4]bool{c.Small[0], false, c.Small[1], false}})
				}
			}
			if got, want := num(t, obj(js["errors"])["failed"], "failed"), float64(s.Failed); *got != want {
				t.Errorf("%s failed %v, want %v", s.Label, *got, want)
			}
		}
	}
}

// checkDist compares one distribution of report.json with the Result's.
func checkDist(t *testing.T, where string, j map[string]any, d analyze.Dist) {
	t.Helper()
	if n := num(t, j["n"], where); *n != float64(d.N) {
		t.Errorf("%s: n %v, want %d", where, *n, d.N)
	}
	small := map[string]bool{}
	for _, s := range j["too_small"].([]any) {
		small[s.(string)] = true
	}
	for i, p := range []*float64{d.P50, d.P90, d.P95, d.P99} {
		key := pctNames[i]
		if _, ok := j[key]; !ok {
			continue // components have no P90, P99
		}
		got := num(t, j[key], where+" "+key)
		switch {
		case d.Small[i]:
			if got != nil || !small[key] {
				t.Errorf("%s %s: %v (too_small %v), want null as the report shows n too small", where, key, got, small[key])
			}
		case (got == nil) != (p == nil) || got != nil && *got != *p:
			t.Errorf("%s %s: %v, want %v", where, key, got, p)
		}
	}
	if ci, ok := j["p95_interval"].(map[string]any); ok {
		if lo := num(t, ci["lo"], where); (lo == nil) != (d.P95CI.Lo == nil) || lo != nil && *lo != *d.P95CI.Lo {
			t.Errorf("%s p95_interval.lo %v, want %v", where, lo, d.P95CI.Lo)
		}
	}
}

// Hand-computed figures of the standard fixture (analyzetest.Standard).
func TestJSONStandardFigures(t *testing.T) {
	t.Parallel()
	m, _ := renderJSONMap(t, standardResult(t))
	slice := func(label string) map[string]any {
		for _, s := range m["slices"].([]any) {
			if obj(s)["label"] == label {
				return obj(s)
			}
		}
		t.Fatalf("no slice %q", label)
		return nil
	}
	for _, c := range []struct {
		label, metric string
		n             float64
		p50           float64
	}{
		// m1 chat: client E2E of r1 1300, r2 2600, r4 1000, r6 800 ms:
		// P50 (1000 + 1300) / 2; TTFT 300, 600, 400, 150: (300 + 400) / 2.
		{"model=m1, use_case=chat", "client_e2e", 4, 1150},
		{"model=m1, use_case=chat", "client_ttft", 4, 350},
		// m2 chat: r7 1000, r8 -100 (its end before its start, kept as
		// anomalous); TTFT 500 and 100.
		{"model=m2, use_case=chat", "client_e2e", 2, 450},
		{"model=m2, use_case=chat", "client_ttft", 2, 300},
	} {
		d := obj(obj(slice(c.label)["metrics"])[c.metric])
		if n, p50 := num(t, d["n"], c.label), num(t, d["p50"], c.label); *n != c.n || p50 == nil || *p50 != c.p50 {
			t.Errorf("%s %s: n %v p50 %v, want n %v p50 %v", c.label, c.metric, *n, p50, c.n, c.p50)
		}
		// A P95 needs 20 samples: null, as the report shows "n too small".
		if d["p95"] != nil || !strings.Contains(strings.Join(anyStrings(d["too_small"]), ","), "p95") || d["p95_interval"] != nil {
			t.Errorf("%s %s: p95 %v too_small %v interval %v, want null, listed, null", c.label, c.metric, d["p95"], d["too_small"], d["p95_interval"])
		}
	}
	s := slice("model=m1, use_case=chat")
	if w := obj(s["window"]); w["first"] != "2026-03-01T12:00:00.000Z" || w["last"] != "2026-03-01T12:00:05.000Z" {
		t.Errorf("m1 chat window %v, want r1's start to r6's", w)
	}
	if v := obj(slice("model=m1, use_case=(none)")["values"]); v["model"] != "m1" || v["use_case"] != nil {
		t.Errorf("values %v, want model m1 and use_case null", v)
	}
	dq := obj(m["data_quality"])
	if num(t, dq["rejected"], "rejected") == nil || *num(t, dq["rejected"], "") != 3 || *num(t, obj(dq["coverage"])["all_tiers"], "") != 6 {
		t.Errorf("data quality %v, want 3 rejected and 6 requests on all tiers", dq)
	}
	if bytes.Contains(mustJSON(t, m), []byte("SECRET")) {
		t.Error("report.json holds raw rejected text")
	}

	// With enough samples the P95, its interval and the contract are
	// numbers.
	m, _ = renderJSONMap(t, jsonContractResult())
	all := obj(m["slices"].([]any)[0])
	ttft := obj(obj(all["metrics"])["client_ttft"])
	if *num(t, ttft["p95"], "") != 812.5 || *num(t, obj(ttft["p95_interval"])["hi"], "") != 850 || obj(ttft["p99_interval"])["hi"] != nil {
		t.Errorf("client TTFT %v, want P95 812.5 in [780, 850], P99 interval open above", ttft)
	}
	if e := obj(all["errors"]); *num(t, e["rate"], "") != 0.02 || len(e["by_status"].([]any)) != 2 {
		t.Errorf("errors %v, want rate 4/200 with 2 statuses", e)
	}
	k := obj(obj(obj(m["contract"])["cases"].([]any)[0])["constraints"].([]any)[0])
	if k["name"] != "client TTFT P95" || *num(t, k["value"], "") != 812.5 || k["verdict"] != "fail" || k["decided"] != false {
		t.Errorf("constraint %v", k)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// slices.csv: a header naming each --by column and metric, one row per
// slice, empty cells where the report shows no figure.
func TestSlicesCSV(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	var buf bytes.Buffer
	if err := Render(&buf, "csv", res, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+len(res.Slices) {
		t.Fatalf("%d rows, want a header and %d slices", len(rows), len(res.Slices))
	}
	head := rows[0]
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q in %v", name, head)
		return -1
	}
	if strings.Join(head[:5], ",") != "slice,model,use_case,requests,failed" {
		t.Errorf("header starts %v", head[:5])
	}
	for _, r := range rows[1:] {
		if len(r) != len(head) {
			t.Fatalf("row %v has %d cells, header %d", r, len(r), len(head))
		}
	}
	// m1 chat (row 2): 4 requests, client E2E P50 1150 from 4, P95 not shown.
	r := rows[2]
	if r[0] != "model=m1, use_case=chat" || r[1] != "m1" || r[2] != "chat" || r[col("requests")] != "4" ||
		r[col("client_e2e_p50")] != "1150" || r[col("client_e2e_n")] != "4" || r[col("client_e2e_p95")] != "" ||
		r[col("client_ttft_p50")] != "350" {
		t.Errorf("m1 chat row %v", r)
	}
	if r := rows[4]; r[2] != "" || r[col("client_e2e_n")] != "0" || r[col("client_e2e_p50")] != "" {
		t.Errorf("use_case NULL row %v, want empty use_case and no client E2E", r)
	}
}

// Every file a report format writes is one analyze removes when it puts a
// new requests.parquet in place: none is left beside requests it was not
// made from.
func TestFormatsAreDerived(t *testing.T) {
	t.Parallel()
	for _, f := range FormatNames {
		name, ok := Formats[f]
		if !ok {
			t.Errorf("format %q has no file", f)
		}
		if !slices.Contains(analyze.Derived, name) {
			t.Errorf("%s (--format %s) is not in analyze.Derived", name, f)
		}
	}
	if len(FormatNames) != len(Formats) {
		t.Errorf("FormatNames %v does not list every format of %v", FormatNames, Formats)
	}
}

// The bundled data judged against its contract: 1000 requests, so P95s
// with intervals, and verdicts; the JSON matches the schema, its figures
// are the Result's, and each case's verdict is the one the report shows.
func TestJSONContractRun(t *testing.T) {
	t.Parallel()
	res := contractResult(t)
	m, doc := renderJSONMap(t, res)
	validateSchema(t, doc)
	all := obj(obj(m["slices"].([]any)[0])["metrics"])
	if p95 := num(t, obj(all["client_e2e"])["p95"], "p95"); p95 == nil || res.Slices[0].ClientE2E.Small[2] || *p95 != *res.Slices[0].ClientE2E.P95 {
		t.Errorf("all requests client E2E P95 %v, want %v", p95, res.Slices[0].ClientE2E.P95)
	}
	cases := obj(m["contract"])["cases"].([]any)
	if len(cases) != len(res.Contract.Cases) || len(cases) == 0 {
		t.Fatalf("%d contract cases, want %d", len(cases), len(res.Contract.Cases))
	}
	for i, c := range res.Contract.Cases {
		jc := obj(cases[i])
		if jc["use_case"] != c.Name || jc["verdict"] != c.Verdict || len(jc["constraints"].([]any)) != len(c.Constraints) {
			t.Errorf("case %d: %v %v, want %s %s", i, jc["use_case"], jc["verdict"], c.Name, c.Verdict)
		}
		for k, cr := range c.Constraints {
			jk := obj(jc["constraints"].([]any)[k])
			v := num(t, jk["value"], constraintName(cr))
			if jk["name"] != constraintName(cr) || jk["verdict"] != cr.Verdict || (v == nil) != (cr.Value == nil) || v != nil && *v != *cr.Value {
				t.Errorf("%s %s: %v %v %v, want %v %v", c.Name, constraintName(cr), jk["name"], v, jk["verdict"], cr.Value, cr.Verdict)
			}
		}
	}
}

// A label from the logs that a spreadsheet would read as a formula is
// written to slices.csv as text.
func TestCSVLabelsAreText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"llama-3.1-8b":            "llama-3.1-8b",
		"=HYPERLINK(\"x\",\"y\")": "'=HYPERLINK(\"x\",\"y\")",
		"+1":                      "'+1",
		"-2+3":                    "'-2+3",
		"@SUM(A1)":                "'@SUM(A1)",
		"\tx":                     "'\tx",
		"":                        "",
	} {
		if got := cellText(in); got != want {
			t.Errorf("cellText(%q) = %q, want %q", in, got, want)
		}
	}
}
