package contract

import (
	"path/filepath"
	"strings"
	"testing"
)

var columns = []string{"model", "use_case", "streamed", "status"}

// The bundled example parses, in TOML and the same contract in YAML.
func TestLoadExample(t *testing.T) {
	c, err := Load(filepath.Join("..", "..", "testdata", "contract", "contract.toml"), columns)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Cases) != 3 || c.Cases[0].Name != "chat" || len(c.Cases[0].Constraints) != 5 {
		t.Fatalf("cases = %+v", c.Cases)
	}
	chat := c.Cases[0]
	if m := chat.Match; len(m) != 1 || m[0] != (Match{"use_case", "chat"}) || len(chat.By) != 1 || chat.By[0] != "model" {
		t.Errorf("chat match %v by %v: want use_case=chat (the default), by model", m, chat.By)
	}
	want := []Constraint{
		{Kind: "quality", Metric: "eval_pass_rate", Op: ">=", Target: 0.95},
		{Kind: "latency", Metric: "client_ttft_ms", Percentile: 95, Op: "<=", Target: 800},
		{Kind: "latency", Metric: "tps_user", Percentile: 50, Op: ">=", Target: 20},
		{Kind: "cost", Metric: "cost_per_1k_requests", Op: "<=", Target: 0.40},
		{Kind: "reliability", Metric: "error_rate", Op: "<=", Target: 0.005},
	}
	for i, w := range want {
		if g := chat.Constraints[i]; g != w {
			t.Errorf("chat constraint %d = %+v, want %+v", i+1, g, w)
		}
	}
	if k := c.Cases[2].Constraints[1]; k.Target != 600000 {
		t.Errorf("code E2E target \"10m\" = %v ms, want 600000", k.Target)
	}
	y, err := Parse("c.yaml", []byte(`
use_case:
  - name: chat
    by: [model]
    constraint:
      - {metric: eval_pass_rate, op: ">=", target: 95%}
      - {metric: client_ttft_ms, percentile: 95, op: "<=", target: 800ms}
      - {metric: tps_user, percentile: 50, op: ">=", target: 20}
      - {metric: cost_per_1k_requests, op: "<=", target: $0.40}
      - {metric: error_rate, op: "<=", target: 0.5%}
  - name: streamed
    match: {streamed: true, status: 200}
    constraint:
      - {kind: throughput, metric: completions_per_hour, op: ">=", target: 100}
`), columns)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if g := y.Cases[0].Constraints[i]; g != w {
			t.Errorf("YAML chat constraint %d = %+v, want %+v", i+1, g, w)
		}
	}
	if m := y.Cases[1].Match; len(m) != 2 || m[0] != (Match{"status", "200"}) || m[1] != (Match{"streamed", "true"}) {
		t.Errorf("YAML match = %v, want status=200, streamed=true", m)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"", "no use_case"},
		{"[[use_case]]\nname = \"a\"\n", `use_case "a": no constraint`},
		{"[[use_case]]\nname = \"a\"\nmatch = { modle = \"x\" }\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n", "match.modle: no slice column"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"client_ttft\"\nop = \"<=\"\ntarget = 1\n", `constraint 1: metric "client_ttft": unknown`},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"client_ttft_ms\"\nop = \"<=\"\ntarget = 1\n", "client_ttft_ms: percentile: want a number between 0 and 100"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"error_rate\"\npercentile = 95\nop = \"<=\"\ntarget = 0.1\n", "error_rate is a share, not a percentile"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"=\"\ntarget = 0.1\n", `op "=": want <=, <, >= or >`},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 5\n", "a share is between 0 and 1"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"client_e2e_ms\"\npercentile = 95\nop = \"<=\"\ntarget = \"5%\"\n", "a percentage, but client_e2e_ms is in ms"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\nthreshold = 2\n", "threshold: unknown key"},
		{"[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n[[use_case]]\nname = \"a\"\n", `use_case "a": a second use case`},
	} {
		_, err := Parse("c.toml", []byte(tc.file), columns)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "contract c.toml: ") {
			t.Errorf("%q: error %v, want one naming the file and containing %q", tc.file, err, tc.want)
		}
	}
}

// may_worsen: in the metric's unit, a share in points, or a percentage of
// the baseline for a metric that is no share.
func TestMayWorsen(t *testing.T) {
	c, err := Parse("c.toml", []byte(`
[[use_case]]
name = "chat"
  [[use_case.constraint]]
  metric = "eval_pass_rate"
  op = ">="
  target = "95%"
  may_worsen = "0.5%"
  [[use_case.constraint]]
  metric = "client_ttft_ms"
  percentile = 95
  op = "<="
  target = "800ms"
  may_worsen = "50ms"
  [[use_case.constraint]]
  metric = "client_e2e_ms"
  percentile = 50
  op = "<="
  target = 5000
  may_worsen = "5%"
  [[use_case.constraint]]
  metric = "cost_per_1k_requests"
  op = "<="
  target = "$0.40"
  may_worsen = "$0.02"
  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = 0.01
`), columns)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		v   float64
		rel bool
	}{{0.005, false}, {50, false}, {0.05, true}, {0.02, false}, {0, false}}
	for i, w := range want {
		k := c.Cases[0].Constraints[i]
		if k.MayWorsen != w.v || k.MayWorsenRel != w.rel {
			t.Errorf("constraint %d (%s): may_worsen %v rel %v, want %v %v", i+1, k.Metric, k.MayWorsen, k.MayWorsenRel, w.v, w.rel)
		}
	}
	y, err := Parse("c.yaml", []byte("use_case:\n  - name: chat\n    constraint:\n      - {metric: client_ttft_ms, percentile: 95, op: \"<=\", target: 800ms, may_worsen: 10%}\n"), columns)
	if err != nil {
		t.Fatal(err)
	}
	if k := y.Cases[0].Constraints[0]; k.MayWorsen != 0.1 || !k.MayWorsenRel {
		t.Errorf("YAML may_worsen 10%% = %v rel %v", k.MayWorsen, k.MayWorsenRel)
	}
	for _, tc := range []struct{ allow, want string }{
		{`"-5ms"`, "may_worsen: -5ms: an allowance is not negative"},
		{`"$1"`, "may_worsen: \"$1\": dollars, but client_ttft_ms is in ms"},
		{`"x%"`, `may_worsen: "x%" is not a percentage`},
	} {
		_, err := Parse("c.toml", []byte("[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"client_ttft_ms\"\npercentile = 95\nop = \"<=\"\ntarget = 1\nmay_worsen = "+tc.allow+"\n"), columns)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("may_worsen %s: error %v, want %q", tc.allow, err, tc.want)
		}
	}
}
