package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/explain"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/whatif"
)

// pageSchema compiles docs/NAME.schema.json with formats (date-time)
// asserted.
func pageSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "docs", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatalf("docs/%s.schema.json: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(name+".schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name + ".schema.json")
	if err != nil {
		t.Fatalf("docs/%s.schema.json: %v", name, err)
	}
	return sch
}

// checkPage validates doc against docs/NAME.schema.json, and checks that
// the schema rejects the document without schema_version and with a
// figure as text at path (keys, and indexes as "0").
func checkPage(t *testing.T, name string, doc []byte, path ...string) map[string]any {
	t.Helper()
	sch := pageSchema(t, name)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("%s.json does not decode: %v", name, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s.json does not match docs/%s.schema.json: %v", name, name, err)
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	bad := func(mutate func(map[string]any), what string) {
		var c map[string]any
		json.Unmarshal(doc, &c)
		mutate(c)
		b, _ := json.Marshal(c)
		inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if sch.Validate(inst) == nil {
			t.Errorf("docs/%s.schema.json accepts %s", name, what)
		}
	}
	bad(func(c map[string]any) { delete(c, "schema_version") }, "no schema_version")
	bad(func(c map[string]any) { c["unknown_field"] = 1 }, "a field it does not list")
	if len(path) > 0 {
		bad(func(c map[string]any) {
			var v any = c
			for _, k := range path[:len(path)-1] {
				v = step(v, k)
			}
			v.(map[string]any)[path[len(path)-1]] = "1000.0"
		}, "a figure as text at "+strings.Join(path, "."))
	}
	return m
}

func step(v any, k string) any {
	if l, ok := v.([]any); ok {
		i, _ := strconv.Atoi(k)
		return l[i]
	}
	return v.(map[string]any)[k]
}

// at walks m by keys and list indexes.
func at(v any, path ...string) any {
	for _, k := range path {
		v = step(v, k)
	}
	return v
}

func renderPage(t *testing.T, render func(*bytes.Buffer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(buf.Bytes(), []byte("}\n")) {
		t.Error("the JSON does not end with a newline")
	}
	return buf.Bytes()
}

// near: a JSON number (or null) equals want (nil: null) within 1e-9.
func near(t *testing.T, v any, want *float64, where string) {
	t.Helper()
	got := num(t, v, where)
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", where, fmtp(got), fmtp(want))
	case math.Abs(*got-*want) > 1e-9:
		t.Errorf("%s = %v, want %v", where, *got, *want)
	}
}

func fmtp(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// analyzedFixture writes f into a new dir and analyzes it.
func analyzedFixture(t *testing.T, f analyzetest.Fixture) string {
	t.Helper()
	dir := t.TempDir()
	if err := analyzetest.Write(context.Background(), dir, f, analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	if _, err := analyze.Run(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// compare.json of two runs of 400 chat requests, the target's client TTFT
// 30 ms slower (analyzetest.Chat: TTFT 100+i ms, i = 0..399), judged
// against a contract: every figure the page shows, by hand.
func TestCompareJSON(t *testing.T) {
	t.Parallel()
	bf, be := analyzetest.Chat("b", 0, 380)
	tf, te := analyzetest.Chat("t", 30, 380)
	base, target := analyzedFixture(t, bf), analyzedFixture(t, tf)
	evals := filepath.Join(t.TempDir(), "evals.csv")
	if err := os.WriteFile(evals, []byte("request_id,pass\n"+be+te), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse("contract.toml", []byte(analyzetest.ChatContract), analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := compare.Run(context.Background(), compare.Options{Baseline: compare.CompareSide{Dir: base},
		Target: compare.CompareSide{Dir: target}, Contract: c, Evals: evals})
	if err != nil {
		t.Fatal(err)
	}
	doc := renderPage(t, func(b *bytes.Buffer) error { return RenderCompare(b, "json", cmp) })
	m := checkPage(t, "compare", doc, "slices", "0", "metrics", "0", "quantiles", "1", "change")

	if at(m, "schema_version") != "1" || at(m, "baseline", "dir") != base || at(m, "baseline", "window") != nil ||
		at(m, "target", "requests") != json.Number("400") {
		t.Errorf("sides: %v, %v", at(m, "baseline"), at(m, "target"))
	}
	all := at(m, "slices", "0")
	if at(all, "all") != true || at(all, "label") != "all requests" || at(all, "baseline_requests") != json.Number("400") {
		t.Errorf("slice 0 = %v %v, want all requests, 400 on each side", at(all, "label"), at(all, "baseline_requests"))
	}
	// Client TTFT 100..499 by quantile_cont: P50 299.5, P95 479.05,
	// P99 495.01; the target's 30 ms more.
	var ttft any
	for _, mc := range at(all, "metrics").([]any) {
		if at(mc, "metric") == "client_ttft" {
			ttft = mc
		}
	}
	if ttft == nil || at(ttft, "unit") != "ms" || at(ttft, "higher_is_better") != false {
		t.Fatalf("client_ttft: %v", ttft)
	}
	for i, want := range []struct {
		q    string
		base float64
	}{{"p50", 299.5}, {"p95", 479.05}, {"p99", 495.01}} {
		q := at(ttft, "quantiles", itoa(i))
		if at(q, "quantile") != want.q || at(q, "baseline", "n") != json.Number("400") || at(q, "target", "n") != json.Number("400") {
			t.Errorf("%s: %v", want.q, q)
		}
		near(t, at(q, "baseline", "value"), fp(want.base), want.q+" baseline")
		near(t, at(q, "target", "value"), fp(want.base+30), want.q+" target")
		near(t, at(q, "change"), fp(30), want.q+" change")
	}
	// Every quantile is the Comparison's, its mark and direction the
	// page's.
	for si, s := range cmp.Slices {
		js := at(m, "slices", itoa(si))
		for mi, mc := range s.Metrics {
			jm := at(js, "metrics", itoa(mi))
			for qi, q := range mc.Points {
				jq := at(jm, "quantiles", itoa(qi))
				where := s.Label + " " + mc.Metric + " " + quantileLabel(q)
				near(t, at(jq, "baseline", "value"), q.Baseline, where+" baseline")
				near(t, at(jq, "target", "value"), q.Target, where+" target")
				near(t, at(jq, "change"), q.Delta, where+" change")
				if iv := at(jq, "interval"); iv != nil {
					near(t, at(iv, "lo"), q.Lo, where+" lo")
					near(t, at(iv, "hi"), q.Hi, where+" hi")
				} else if q.Lo != nil || q.Hi != nil {
					t.Errorf("%s: interval null, want [%v, %v]", where, fmtp(q.Lo), fmtp(q.Hi))
				}
				mark, worse, _ := changeMark(mc, q)
				if (mark == "" && at(jq, "mark") != nil) || (mark != "" && at(jq, "mark") != mark) {
					t.Errorf("%s: mark %v, want %q", where, at(jq, "mark"), mark)
				}
				if worse && at(jq, "direction") != "worse" {
					t.Errorf("%s: direction %v, want worse", where, at(jq, "direction"))
				}
			}
		}
	}
	// TTFT rises with every request, so neighbours are alike and the
	// 400 count as few independent samples: the samples give the change
	// no bound (the page's "open"), an interval of two null bounds, not
	// null (the page's "–"), and no significant change.
	if q := at(ttft, "quantiles", "1"); at(q, "interval") == nil || at(q, "interval", "lo") != nil ||
		at(q, "interval", "hi") != nil || at(q, "significant") != false || at(q, "mark") != "noise" {
		t.Errorf("client TTFT P95: %v, want an open interval, noise", q)
	}
	// The verdict: accept, the P95 TTFT +30 ms within its 50 ms.
	v := at(m, "verdict")
	if at(v, "verdict") != "accept" || at(v, "file") != "contract.toml" || !strings.HasPrefix(at(v, "text").(string), "ACCEPT") {
		t.Errorf("verdict: %v %v %v", at(v, "verdict"), at(v, "file"), at(v, "text"))
	}
	k := at(v, "cases", "0", "constraints", "1")
	if at(k, "name") != "client TTFT P95" || at(k, "status") != compare.ChangeWithin || at(k, "unit") != "ms" {
		t.Errorf("constraint 2: %v", k)
	}
	near(t, at(k, "allowed"), fp(50), "allowed")
	near(t, at(k, "change"), fp(30), "constraint change")
	near(t, at(k, "baseline", "value"), fp(479.05), "constraint baseline")
	near(t, at(k, "target", "value"), fp(509.05), "constraint target")
	if at(k, "baseline", "n") != json.Number("400") || at(k, "interval") == nil {
		t.Errorf("constraint 2 baseline n %v interval %v", at(k, "baseline", "n"), at(k, "interval"))
	}
}

// compare.json of two time windows of one directory names each side's
// window.
func TestCompareJSONWindows(t *testing.T) {
	t.Parallel()
	dir := standardDir(t)
	from, mid, to := analyzetest.Base, analyzetest.Base.Add(4500*1e6), analyzetest.Base.Add(9000*1e6)
	cmp, err := compare.Run(context.Background(), compare.Options{
		Baseline: compare.CompareSide{Dir: dir, From: &from, To: &mid}, Target: compare.CompareSide{Dir: dir, From: &mid, To: &to}})
	if err != nil {
		t.Fatal(err)
	}
	doc := renderPage(t, func(b *bytes.Buffer) error { return RenderCompare(b, "json", cmp) })
	m := checkPage(t, "compare", doc)
	if got := at(m, "baseline", "window", "first"); got != "2026-03-01T12:00:00.000Z" {
		t.Errorf("baseline window first = %v", got)
	}
	if got := at(m, "target", "window", "last"); got != "2026-03-01T12:00:09.000Z" {
		t.Errorf("target window last = %v", got)
	}
	if at(m, "verdict") != nil {
		t.Error("verdict without a contract is not null")
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// explain.json of r1 of the standard fixture: its client E2E 1300 ms
// against model=m1, use_case=chat's 4 requests (1300, 2600, 1000, 800 ms:
// P50 1150, P95 from too few samples), and every figure the Explanation's.
func TestExplainJSON(t *testing.T) {
	t.Parallel()
	dir := standardDir(t)
	ex, err := explain.Run(context.Background(), dir, explain.Options{IDs: []string{"r1", "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	doc := renderPage(t, func(b *bytes.Buffer) error { return RenderExplain(b, "json", ex) })
	m := checkPage(t, "explain", doc, "requests", "0", "answer", "e2e", "total_ms")
	if got := at(m, "missing"); len(got.([]any)) != 1 || at(got, "0") != "nope" {
		t.Errorf("missing = %v, want [nope]", got)
	}
	r := at(m, "requests", "0")
	if at(r, "request_id") != "r1" || at(r, "start") != "2026-03-01T12:00:00.000Z" || at(r, "model") != "m1" ||
		at(r, "status") != json.Number("200") || at(r, "slice") != "model=m1, use_case=chat" {
		t.Errorf("request: %v %v %v %v %v", at(r, "request_id"), at(r, "start"), at(r, "model"), at(r, "status"), at(r, "slice"))
	}
	var e2e any
	for _, c := range at(r, "components").([]any) {
		if at(c, "metric") == "client_e2e" {
			e2e = c
		}
	}
	if e2e == nil {
		t.Fatal("no client_e2e component")
	}
	near(t, at(e2e, "value"), fp(1300), "client_e2e")
	near(t, at(e2e, "slice", "p50"), fp(1150), "slice p50")
	near(t, at(e2e, "slice", "p95"), nil, "slice p95")
	if at(e2e, "slice", "n") != json.Number("4") || at(e2e, "unit") != "ms" || at(e2e, "above_p95") != false ||
		!slices.Equal(anyStrings(at(e2e, "slice", "too_small")), []string{"p95"}) {
		t.Errorf("client_e2e: %v", e2e)
	}
	// p95_hi: open (null) from 4 samples.
	near(t, at(e2e, "slice", "p95_hi"), nil, "slice p95_hi")
	// The answer's figures (explain's TestExplainAnswer by hand): client
	// E2E 1300 ms, model 1210 of it, decode 1010 of that; client TTFT 300,
	// TTFT model 200.
	a := at(r, "answer")
	if at(a, "e2e", "total") != "client_e2e" || at(a, "e2e", "top", "metric") != "model" || at(a, "e2e", "sub", "metric") != "decode" ||
		at(a, "ttft", "total") != "client_ttft" || at(a, "ttft", "top", "metric") != "ttft_model" || len(at(a, "e2e", "unknown").([]any)) != 0 {
		t.Errorf("answer: %v", a)
	}
	near(t, at(a, "e2e", "total_ms"), fp(1300), "answer e2e total")
	near(t, at(a, "e2e", "top", "ms"), fp(1210), "answer e2e top")
	near(t, at(a, "e2e", "share"), fp(1210.0/1300), "answer e2e share")
	near(t, at(a, "e2e", "sub", "ms"), fp(1010), "answer e2e sub")
	near(t, at(a, "e2e", "unknown_ms"), fp(0), "answer e2e unknown")
	near(t, at(a, "ttft", "total_ms"), fp(300), "answer ttft total")
	near(t, at(a, "ttft", "share"), fp(200.0/300), "answer ttft share")
	// Every figure is the Explanation's.
	for ri, er := range ex.Requests {
		jr := at(m, "requests", itoa(ri))
		for ci, c := range er.Components {
			jc := at(jr, "components", itoa(ci))
			near(t, at(jc, "value"), c.Value, c.Metric)
			if at(jc, "above_p95") != c.AboveP95 {
				t.Errorf("%s: above_p95 %v, want %v", c.Metric, at(jc, "above_p95"), c.AboveP95)
			}
			if !c.SliceSmall[1] {
				near(t, at(jc, "slice", "p95_hi"), c.SliceP95Hi, c.Metric+" p95_hi")
			}
			if at(jc, "slice", "n") != json.Number(jsonInt(c.SliceN)) {
				t.Errorf("%s: slice n %v, want %d", c.Metric, at(jc, "slice", "n"), c.SliceN)
			}
		}
		for si, s := range er.Spans {
			js := at(jr, "spans", itoa(si))
			near(t, at(js, "start_ms"), s.StartMs, s.Name+" start")
			near(t, at(js, "end_ms"), s.EndMs, s.Name+" end")
		}
	}
	if len(at(m, "clock_offsets").([]any)) != len(ex.Offsets) {
		t.Errorf("%d clock offsets, want %d", len(at(m, "clock_offsets").([]any)), len(ex.Offsets))
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// nativeDir is a copy of the bundled data set (1000 requests of two models
// on five replicas), ingested and analyzed once per test binary.
func nativeDir(t *testing.T) string {
	t.Helper()
	return sharedDir(t, "native", func(out string) error {
		ctx := context.Background()
		opt := ingest.Options{Out: out}
		for _, in := range []struct {
			tier ingest.Tier
			spec string
		}{{ingest.Client, "../testdata/native/client/*.jsonl"}, {ingest.Gateway, "../testdata/native/gateway/*.jsonl"}, {ingest.Server, "../testdata/native/server/*"}} {
			i, err := ingest.ParseInput(in.tier, in.spec)
			if err != nil {
				return err
			}
			opt.Inputs = append(opt.Inputs, i)
		}
		if _, err := ingest.Run(ctx, opt); err != nil {
			return err
		}
		st, err := analyze.Run(ctx, out)
		if err == nil && st.Coverage.Requests != 1000 {
			err = fmt.Errorf("the bundled data gave %d requests, want 1000", st.Coverage.Requests)
		}
		return err
	})
}

// whatifContract judges the replay's server TTFT of chat.
const whatifContract = `
[[use_case]]
name = "chat"
  [[use_case.constraint]]
  metric = "server_ttft_ms"
  percentile = 95
  op = "<="
  target = "2s"
`

// whatif.json of the bundled data with one more llama-3.1-70b replica and
// a contract: every figure is the Result's, the untouched model's
// prediction is its as-is replay, and the schema holds.
func TestWhatIfJSON(t *testing.T) {
	t.Parallel()
	dir := nativeDir(t)
	c, err := contract.Parse("contract.toml", []byte(whatifContract), analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	r, err := whatif.Run(context.Background(), dir, whatif.Options{Replicas: []string{"llama-3.1-70b=+1"}, Traffic: 1, Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderWhatIfJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	doc := buf.Bytes()
	m := checkPage(t, "whatif", doc, "models", "0", "observed", "queue", "p95")
	if at(m, "changed") != true || at(m, "headline") != WhatIfHeadline(r) || !slices.Equal(anyStrings(at(m, "changes")), []string{"llama-3.1-70b: +1 replica(s)"}) {
		t.Errorf("changed %v, headline %v, changes %v", at(m, "changed"), at(m, "headline"), at(m, "changes"))
	}
	if len(r.Models) != 2 {
		t.Fatalf("%d models, want the bundled data's 2", len(r.Models))
	}
	figs := func(jf any, f whatif.Figures, where string) {
		t.Helper()
		if at(jf, "n") != json.Number(jsonInt(int64(f.N))) || at(jf, "n_ttft") != json.Number(jsonInt(int64(f.NTTFT))) {
			t.Errorf("%s: n %v n_ttft %v, want %d %d", where, at(jf, "n"), at(jf, "n_ttft"), f.N, f.NTTFT)
		}
		for i, name := range []string{"queue", "ttft", "e2e"} {
			v := [3][3]*float64{f.Queue, f.TTFT, f.E2E}[i]
			for k, p := range []string{"p50", "p95", "p99"} {
				near(t, at(jf, name, p), v[k], where+" "+name+" "+p)
			}
		}
	}
	for i, mr := range r.Models {
		jm := at(m, "models", itoa(i))
		if at(jm, "model") != mr.Model || at(jm, "fits") != mr.Fits {
			t.Errorf("model %d: %v fits %v", i, at(jm, "model"), at(jm, "fits"))
		}
		figs(at(jm, "observed"), mr.Observed, mr.Model+" observed")
		figs(at(jm, "as_is"), mr.AsIs, mr.Model+" as-is")
		if at(jm, "window", "first") != *rfc3339(mr.From) {
			t.Errorf("%s window %v", mr.Model, at(jm, "window"))
		}
		p := at(jm, "prediction")
		switch {
		case !mr.Fits:
			if at(p, "status") != "no fit" || at(p, "figures") != nil {
				t.Errorf("%s does not fit, prediction %v", mr.Model, p)
			}
		case mr.Model == "llama-3.1-8b":
			// Neither its pool nor its traffic changes.
			if at(p, "status") != "unchanged" {
				t.Errorf("%s: prediction %v, want unchanged", mr.Model, at(p, "status"))
			}
			figs(at(p, "figures"), mr.AsIs, mr.Model+" predicted = as-is")
		default:
			figs(at(p, "figures"), mr.Predicted, mr.Model+" predicted")
			if at(jm, "predicted_replicas") != json.Number(jsonInt(int64(mr.Replicas+1))) {
				t.Errorf("%s: predicted replicas %v, want %d", mr.Model, at(jm, "predicted_replicas"), mr.Replicas+1)
			}
		}
	}
	jc := at(m, "contract")
	if jc == nil || at(jc, "file") != "contract.toml" || at(jc, "met") != r.Contract.Met {
		t.Fatalf("contract: %v", jc)
	}
	for i, k := range r.Contract.Checks {
		near(t, at(jc, "checks", itoa(i), "value"), k.Value, "check "+k.Case)
		near(t, at(jc, "checks", itoa(i), "target"), fp(2000), "check target")
	}
	if n := len(at(m, "pool", "replicas").([]any)); n != len(r.Pool.Evidence) || n != 5 {
		t.Errorf("%d replicas, want the bundled data's 5", n)
	}
}

// whatif.json without a change: every prediction "none", the pool as it
// is, no contract.
func TestWhatIfJSONAsIs(t *testing.T) {
	t.Parallel()
	dir := nativeDir(t)
	r, err := whatif.Run(context.Background(), dir, whatif.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderWhatIfJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	m := checkPage(t, "whatif", buf.Bytes())
	if at(m, "changed") != false || at(m, "contract") != nil || at(m, "traffic") != json.Number("1") || at(m, "window") != nil {
		t.Errorf("changed %v contract %v traffic %v window %v", at(m, "changed"), at(m, "contract"), at(m, "traffic"), at(m, "window"))
	}
	for i := range r.Models {
		if s := at(m, "models", itoa(i), "prediction", "status"); s != "none" {
			t.Errorf("model %d: prediction %v, want none", i, s)
		}
	}
}

// Every file compare, explain and whatif write is one analyze removes when
// it puts a new requests.parquet in place.
func TestPagesAreDerived(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"compare", "explain", "whatif"} {
		for _, f := range pageFormats {
			if !slices.Contains(analyze.Derived, name+"."+f) {
				t.Errorf("%s.%s is not in analyze.Derived", name, f)
			}
		}
	}
}

// WriteCompare and WriteExplain write the JSON beside the pages.
func TestWritePagesJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paths, err := WriteExplain(dir, explainFixture())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "explain.md"), filepath.Join(dir, "explain.html"), filepath.Join(dir, "explain.json")}
	if !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	doc, err := os.ReadFile(want[2])
	if err != nil {
		t.Fatal(err)
	}
	m := checkPage(t, "explain", doc)
	// Markup from the logs stays as it is in JSON: it is data, not HTML.
	if at(m, "requests", "0", "request_id") != "req-"+evil {
		t.Errorf("request_id = %v", at(m, "requests", "0", "request_id"))
	}
	paths, err = WriteCompare(dir, compareFixture())
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || filepath.Base(paths[2]) != "compare.json" {
		t.Errorf("paths %v", paths)
	}
	doc, _ = os.ReadFile(paths[2])
	checkPage(t, "compare", doc)
}
