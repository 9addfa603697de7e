package contract

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

var columns = []string{"model", "use_case", "streamed", "status"}

// The bundled example parses, in TOML and the same contract in YAML.
func TestLoadExample(t *testing.T) {
	t.Parallel()
	c, err := Load(filepath.Join("..", "testdata", "contract", "contract.toml"), columns)
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

// Every mistake is an *Error naming the file, the line at fault and the
// use case, and saying what was given and what is wanted.
func TestParseErrors(t *testing.T) {
	t.Parallel()
	const head = "[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\n" // lines 1-3
	for _, tc := range []struct{ file, want string }{
		{"", "c.toml: no use_case: want one [[use_case]] section (TOML) or use_case: list item (YAML) per use case"},
		{"[[use_case]]\nname = \"a\"\n", `c.toml:2: use case "a": no constraint`},
		{"[[use_case]]\nname = \"a\"\nmatch = { modle = \"x\" }\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n",
			`c.toml:3: use case "a": match.modle: no slice column of that name; did you mean model? (known: model, use_case, streamed, status)`},
		{"[[use_case]]\nname = \"a\"\nby = [\"models\"]\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n",
			`c.toml:3: use case "a": by: "models" is no slice column; did you mean model? (known: model, use_case, streamed, status)`},
		{"[[use_case]]\nname = \"a\"\nmatch = { model = [1] }\n[[use_case.constraint]]\nmetric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n",
			`c.toml:3: use case "a": match.model must be a value (a string, number or boolean), not a list`},
		{head + "metric = \"client_ttft\"\nop = \"<=\"\ntarget = 1\n", `c.toml:4: use case "a": metric "client_ttft": unknown; did you mean client_ttft_ms? (known: ` + metricNames() + ")"},
		{head + "metric = \"client_e2e\"\nop = \"<=\"\ntarget = 1\n", `c.toml:4: use case "a": metric "client_e2e": unknown; did you mean client_e2e_ms? (known: ` + metricNames() + ")"},
		{head + "metric = \"ttft_p95\"\nop = \"<=\"\ntarget = 1\n", `c.toml:4: use case "a": metric "ttft_p95": unknown (known: ` + metricNames() + ")"},
		{head + "metric = 5\nop = \"<=\"\ntarget = 1\n", `c.toml:4: use case "a": metric must be a string, not the number 5`},
		{head + "metric = \"client_ttft_ms\"\nop = \"<=\"\ntarget = 1\n", `c.toml:3: use case "a": client_ttft_ms needs a percentile: a number between 0 and 100 (95 for P95)`},
		{head + "metric = \"client_ttft_ms\"\npercentile = \"95\"\nop = \"<=\"\ntarget = 1\n",
			`c.toml:5: use case "a": percentile for client_ttft_ms must be a number between 0 and 100 (95 for P95), not the string "95"`},
		{head + "metric = \"error_rate\"\npercentile = 95\nop = \"<=\"\ntarget = 0.1\n", `c.toml:5: use case "a": error_rate is a share, not a percentile: remove percentile`},
		{head + "metric = \"error_rate\"\nop = \"=\"\ntarget = 0.1\n", `c.toml:5: use case "a": op "=": want <=, <, >= or >`},
		{head + "metric = \"error_rate\"\nop = \"<=\"\n", `c.toml:3: use case "a": error_rate: no target`},
		{head + "metric = \"error_rate\"\nop = \"<=\"\ntarget = 5\n", `c.toml:6: use case "a": target for error_rate: 5: a share is between 0 and 1 (or 0% and 100%)`},
		{head + "metric = \"error_rate\"\nop = \"<=\"\ntarget = \"5 percent\"\n",
			`c.toml:6: use case "a": target for error_rate must be a share: a fraction (0.97) or a percentage ("97%"), not the string "5 percent"`},
		{head + "metric = \"client_e2e_ms\"\npercentile = 95\nop = \"<=\"\ntarget = \"5%\"\n",
			`c.toml:7: use case "a": target for client_e2e_ms must be a number of milliseconds (800) or a duration ("800ms", "5s"), not the string "5%"`},
		{head + "metric = \"cost_per_1k_requests\"\nop = \"<=\"\ntarget = true\n",
			`c.toml:6: use case "a": target for cost_per_1k_requests must be an amount in USD (0.40 or "$0.40"), not the boolean true`},
		{head + "metric = \"tps_user\"\npercentile = 50\nop = \">=\"\ntarget = \"20\"\n",
			`c.toml:7: use case "a": target for tps_user must be a number (tokens/s), not the string "20"`},
		{head + "metric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\nthreshold = 2\n", "c.toml: use_case.constraint.threshold: unknown key"},
		{head + "metric = \"error_rate\"\nop = \"<=\"\ntarget = 0.1\n[[use_case]]\nname = \"a\"\n", `c.toml:8: use case "a": a second use case of that name (the first is on line 2)`},
		{"[[use_case]]\nname = 7\n", `c.toml:2: use case 1: name must be a string, not the number 7`},
		// Constraints written inline have no line of their own: the
		// error says which constraint.
		{"[[use_case]]\nname = \"a\"\nconstraint = [\n  { metric = \"error_rate\", op = \"<=\", target = 0.1 },\n  { metric = \"error_rate\", op = \"<=\", target = \"x\" },\n]\n",
			`c.toml: use case "a": constraint 2: target for error_rate must be a share: a fraction (0.97) or a percentage ("97%"), not the string "x"`},
	} {
		_, err := Parse("c.toml", []byte(tc.file), columns)
		var ce *Error
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\nerror %v\nwant  %s", tc.file, err, tc.want)
		}
	}
}

// A target of the wrong type names its line, its use case, what was given
// and what the metric wants, in TOML as in YAML.
func TestTargetTypeError(t *testing.T) {
	t.Parallel()
	toml := `# a contract
[[use_case]]
name = "chat"

  [[use_case.constraint]]
  metric = "eval_pass_rate"
  op = ">="
  target = "95%"

  [[use_case.constraint]]
  metric = "client_ttft_ms"
  percentile = 95
  op = "<="
  target = "800"
`
	_, err := Parse("contract.toml", []byte(toml), columns)
	want := `contract.toml:14: use case "chat": target for client_ttft_ms must be a number of milliseconds (800) or a duration ("800ms", "5s"), not the string "800"`
	if err == nil || err.Error() != want {
		t.Errorf("TOML: error %v\nwant %s", err, want)
	}
	yml := `use_case:
  - name: chat
    constraint:
      - {metric: eval_pass_rate, op: ">=", target: 95%}
      - metric: client_ttft_ms
        percentile: 95
        op: "<="
        target: "800"
`
	_, err = Parse("contract.yaml", []byte(yml), columns)
	want = `contract.yaml:8: use case "chat": target for client_ttft_ms must be a number of milliseconds (800) or a duration ("800ms", "5s"), not the string "800"`
	if err == nil || err.Error() != want {
		t.Errorf("YAML: error %v\nwant %s", err, want)
	}
	// YAML's bare 800ms is a string, its bare true a boolean.
	_, err = Parse("contract.yml", []byte("use_case:\n  - name: chat\n    constraint:\n      - {metric: error_rate, op: \"<=\", target: true}\n"), columns)
	want = `contract.yml:4: use case "chat": target for error_rate must be a share: a fraction (0.97) or a percentage ("97%"), not the boolean true`
	if err == nil || err.Error() != want {
		t.Errorf("YAML boolean: error %v\nwant %s", err, want)
	}
}

// Each use case knows the line of its name and of its match, for the
// errors analyze gives about it.
func TestCaseLines(t *testing.T) {
	t.Parallel()
	c, err := Load(filepath.Join("..", "testdata", "contract", "contract.toml"), columns)
	if err != nil {
		t.Fatal(err)
	}
	// chat: name on line 7, no match (its name selects); rag: name 38,
	// match 39; code: name 59.
	for i, w := range [][2]int{{7, 7}, {38, 39}, {59, 59}} {
		if g := c.Cases[i]; g.Line != w[0] || g.MatchLine != w[1] {
			t.Errorf("%s: name line %d, match line %d; want %d, %d", g.Name, g.Line, g.MatchLine, w[0], w[1])
		}
	}
}

// may_worsen: in the metric's unit, a share in points, or a percentage of
// the baseline for a metric that is no share.
func TestMayWorsen(t *testing.T) {
	t.Parallel()
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
		{`"-5ms"`, `c.toml:8: use case "a": may_worsen for client_ttft_ms: -5ms: an allowance is not negative`},
		{`"$1"`, `c.toml:8: use case "a": may_worsen for client_ttft_ms must be a number of milliseconds (800) or a duration ("800ms", "5s"), not the string "$1"`},
		{`"x%"`, `c.toml:8: use case "a": may_worsen for client_ttft_ms must be a number of milliseconds (800) or a duration ("800ms", "5s") or a percentage of the baseline ("5%"), not the string "x%"`},
	} {
		_, err := Parse("c.toml", []byte("[[use_case]]\nname = \"a\"\n[[use_case.constraint]]\nmetric = \"client_ttft_ms\"\npercentile = 95\nop = \"<=\"\ntarget = 1\nmay_worsen = "+tc.allow+"\n"), columns)
		if err == nil || err.Error() != tc.want {
			t.Errorf("may_worsen %s: error %v, want %q", tc.allow, err, tc.want)
		}
	}
}
