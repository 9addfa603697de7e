package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/whatif"
)

// whatIfFigures are figures with only the given P50 or P95 of queue and
// TTFT set.
func whatIfFigures(queue, ttft [2]*float64) whatif.Figures {
	return whatif.Figures{Queue: [3]*float64{queue[0], queue[1], nil}, TTFT: [3]*float64{ttft[0], ttft[1], nil}}
}

func renderWhatIf(t *testing.T, format string, r *whatif.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := RenderWhatIf(&b, format, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The first sentence answers the question asked: with --contract it says
// whether the contract holds and with how many replicas more, after the
// prediction when a change is asked, first when none is.
func TestWhatIfHeadlineContract(t *testing.T) {
	t.Parallel()
	fig := func(queue, ttft float64) whatif.Figures {
		return whatIfFigures([2]*float64{nil, fp(queue)}, [2]*float64{nil, fp(ttft)})
	}
	model := whatif.ModelResult{Model: "m", Fits: true, AsIs: fig(4000, 4200), Predicted: fig(1700, 1900)}
	check := whatif.ContractCheck{Case: "chat", Metric: "server_ttft_ms", Percentile: 95, Op: "<=", Target: 2000, Value: fp(1900), N: 400, Met: true}
	pred := "With m: +1 replica(s), m's P95 TTFT would go from 4.2 s to 1.9 s (P95 queue 4.0 s → 1.7 s)"
	for _, tc := range []struct {
		name    string
		changed bool
		c       *whatif.ContractResult
		want    string
	}{
		{"no contract", true, nil, pred + "."},
		{"holds", true, &whatif.ContractResult{Met: true, Added: []int{0}, Models: []string{"m"}, Checks: []whatif.ContractCheck{check}},
			pred + "; the contract holds."},
		{"holds with more", true, &whatif.ContractResult{Met: true, Added: []int{2}, Models: []string{"m"}, Checks: []whatif.ContractCheck{check}},
			pred + "; the contract holds only with m +2 replica(s) more."},
		{"not met", true, &whatif.ContractResult{Added: []int{8}, Models: []string{"m"}, Checks: []whatif.ContractCheck{check}},
			pred + "; the contract is not met even with m +8 replica(s) more."},
		{"nothing judged", true, &whatif.ContractResult{Met: true, Added: []int{0}, Models: []string{"m"}},
			pred + "; the replay can judge none of the contract's constraints."},
		{"the contract is the question", false, &whatif.ContractResult{Met: true, Added: []int{3}, Models: []string{"m"}, Checks: []whatif.ContractCheck{check}},
			"The contract holds only with m +3 replica(s); the pool as it is, replayed, reproduces the logged queue, TTFT and E2E of every model."},
	} {
		r := &whatif.Result{Changed: tc.changed, Models: []whatif.ModelResult{model}, Contract: tc.c}
		if tc.changed {
			r.Changes = []whatif.Change{{Model: "m", Relative: true, Delta: 1}}
		}
		if got := WhatIfHeadline(r); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// A model whose as-is replay does not fit the logs (it logged a 500 ms P50
// queue the replay does not give) gets no prediction, and whatif.md and
// whatif.html say why, in its table and below it.
func TestWhatIfDoesNotFit(t *testing.T) {
	t.Parallel()
	m := whatif.ModelResult{Model: "m", Misfits: []whatif.Misfit{{Kind: whatif.MisfitFigure, Quantile: "P50", Figure: "queue", AsIsMs: 0, LoggedMs: 500}},
		Observed: whatIfFigures([2]*float64{fp(500), fp(500)}, [2]*float64{fp(520), fp(520)}),
		AsIs:     whatIfFigures([2]*float64{fp(0), fp(0)}, [2]*float64{fp(20), fp(20)})}
	r := &whatif.Result{Dir: "out", Changed: true, Traffic: 1, Changes: []whatif.Change{{Model: "m", Relative: true, Delta: 1}}, Pool: &whatif.Pool{}, Models: []whatif.ModelResult{m}}
	md := renderWhatIf(t, "md", r)
	for _, want := range []string{
		"**With m: +1 replica(s), m gets no prediction (its as-is replay does not fit the logs).**",
		"**does not fit** the data well enough to predict: P50 queue: as-is replay 0.0 ms against 500.0 ms logged",
		"No prediction is given for it.",
		"| queue | P50 | 500.0 | 0.0 | doesn't fit |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("whatif.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Predicted over") {
		t.Errorf("whatif.md claims a prediction:\n%s", md)
	}
	if html := renderWhatIf(t, "html", r); !strings.Contains(html, "gets no prediction (its as-is replay does not fit the logs)") || strings.Contains(html, "Predicted over") {
		t.Errorf("whatif.html does not say m gets no prediction, or claims one:\n%s", html)
	}
}

// Where the logs leave two routing policies plausible, the page says so
// and gives the prediction as a range, lowest – highest.
func TestWhatIfRoutingRange(t *testing.T) {
	t.Parallel()
	fig := func(lo, hi float64) whatif.Figures {
		return whatIfFigures([2]*float64{fp(lo), fp(hi)}, [2]*float64{fp(lo + 20), fp(hi + 20)})
	}
	m := whatif.ModelResult{Model: "m", Fits: true, Observed: fig(0, 40), AsIs: fig(0, 40), Predicted: fig(0, 10), Low: fig(0, 10), High: fig(0, 30),
		ByPolicy: []whatif.PolicyFigures{{Policy: whatif.RouteLeastLoaded, Figures: fig(0, 10)}, {Policy: whatif.RouteRoundRobin, Figures: fig(0, 30)}}}
	pool := &whatif.Pool{Routing: []whatif.RoutingEvidence{{Model: "m", LLN: 79, LeastLoaded: 40.0 / 79, RRN: 79, RoundRobin: 1,
		Plausible: []whatif.Policy{whatif.RouteLeastLoaded, whatif.RouteRoundRobin}}}}
	r := &whatif.Result{Dir: "out", Changed: true, Traffic: 1, Changes: []whatif.Change{{Model: "m", Relative: true, Delta: 1}}, Pool: pool, Models: []whatif.ModelResult{m}}
	md := renderWhatIf(t, "md", r)
	for _, want := range []string{
		"m's P95 TTFT would go from 60 ms to 30 ms – 50 ms (P95 queue 40 ms → 10 ms – 30 ms), depending on the routing, which the logs do not show",
		"The logs leave least loaded and round robin plausible",
		"|  | P95 | 40.0 | 40.0 | 10.0 – 30.0 |\n|  | P99 | – | – | – |\n| TTFT | P50 | 20.0 | 20.0 | 20.0 – 20.0 |\n|  | P95 | 60.0 | 60.0 | 30.0 – 50.0 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("whatif.md lacks %q:\n%s", want, md)
		}
	}
}

// A pool that cannot keep up gets a saturation verdict in the headline and
// no percentiles; one that keeps up gets its prediction.
func TestWhatIfSaturation(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		load      float64
		saturated bool
	}{{1.71, true}, {0.86, false}} {
		fig := whatIfFigures([2]*float64{fp(0), fp(0)}, [2]*float64{fp(20), fp(20)})
		m := whatif.ModelResult{Model: "m", Fits: true, Observed: fig, AsIs: fig, Predicted: fig, PredReplicas: 2, PredSlots: "1",
			Saturation: &whatif.Saturation{Load: c.load, SpanS: 1.3, WorkS: 4.4, Replicas: 2, Slots: 1, Needed: 4}}
		r := &whatif.Result{Dir: "out", Changed: true, Traffic: 3, Pool: &whatif.Pool{}, Models: []whatif.ModelResult{m}}
		md := renderWhatIf(t, "md", r)
		head := "**With traffic ×3 (every model), m cannot keep up — its queue grows without bound (171% of what its 2 × 1 slots serve): it needs at least 4 replicas.**"
		if got := strings.Contains(md, head) && strings.Contains(md, "| queue | P50 | 0.0 | 0.0 | grows without bound |"); got != c.saturated {
			t.Errorf("load %g: whatif.md says the queue grows without bound: %v, want %v\n%s", c.load, got, c.saturated, md)
		}
	}
}

// whatif gives why a model does not fit and why a constraint is not judged
// as data; these are their sentences, in whatif.md, whatif.html and
// whatif.json alike.
func TestWhatIfMisfitAndNotJudgedWording(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		m    whatif.Misfit
		want string
	}{
		{whatif.Misfit{Kind: whatif.MisfitFigure, Quantile: "P95", Figure: "TTFT", AsIsMs: 180.04, LoggedMs: 240}, "P95 TTFT: as-is replay 180.0 ms against 240.0 ms logged"},
		// 10 / 50 = 20%; 3 / 53 = 5.66%, shown 6%.
		{whatif.Misfit{Kind: whatif.MisfitUnreplayed, Missing: 10, Of: 50}, "10 of its 50 server records (20%) give no arrival instant, queue or server E2E and are not replayed"},
		{whatif.Misfit{Kind: whatif.MisfitUnlogged, Missing: 3, Of: 53}, "3 of its 53 forwarded requests (6%) have no server record: a replica whose log is missing would be missing from the pool replayed"},
		{whatif.Misfit{Kind: whatif.MisfitNoRequest}, "no request of the model in the window"},
		{whatif.Misfit{Kind: whatif.MisfitUnplaced}, "none of its requests could be placed on a replica, so the pool replayed lacks it"},
	} {
		if got := whatIfMisfit(c.m); got != c.want {
			t.Errorf("misfit %+v:\n got %s\nwant %s", c.m, got, c.want)
		}
	}
	nj := []whatif.NotJudged{
		{Case: "chat", Reason: whatif.NotKept, Column: "region"},
		{Case: "chat", Reason: whatif.SlicesBy, By: []string{"model", "region"}},
		{Case: "rag", Reason: whatif.NotReplayed, Metric: "tps_user"},
		{Case: "rag", Reason: whatif.ModelMisfit, Metric: "server_ttft_ms", Model: "m"},
	}
	want := []string{
		"chat: matches on region, which the replay does not keep",
		"chat: its slices by model, region are not judged, only the case as a whole",
		"rag: tps_user is not a server queue, TTFT or E2E percentile the replay gives",
		"rag: server_ttft_ms of it on m, whose as-is replay does not fit",
	}
	r := &whatif.Result{Dir: "out", Traffic: 1, Pool: &whatif.Pool{}, Contract: &whatif.ContractResult{File: "c.toml", Met: true, Added: []int{0}, Models: []string{"m"}, NotJudged: nj}}
	md, html := renderWhatIf(t, "md", r), renderWhatIf(t, "html", r)
	for _, w := range want {
		if !strings.Contains(md, "- not judged: "+w+"\n") {
			t.Errorf("whatif.md lacks %q", w)
		}
		if !strings.Contains(html, "Not judged: "+w) {
			t.Errorf("whatif.html lacks %q", w)
		}
	}
	if got := whatIfNotJudgedList(nj); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("not judged for JSON: %q", got)
	}
}

// whatif.md and whatif.html open with the one sentence that answers: the
// line after the title, the paragraph after the heading.
func TestWhatIfOpensWithTheAnswer(t *testing.T) {
	t.Parallel()
	fig := whatIfFigures([2]*float64{fp(0), fp(4000)}, [2]*float64{fp(20), fp(4200)})
	pred := whatIfFigures([2]*float64{fp(0), fp(1700)}, [2]*float64{fp(20), fp(1900)})
	r := &whatif.Result{Dir: "out", Changed: true, Traffic: 1, Changes: []whatif.Change{{Model: "m", Relative: true, Delta: 1}}, Pool: &whatif.Pool{},
		Models: []whatif.ModelResult{{Model: "m", Fits: true, Observed: fig, AsIs: fig, Predicted: pred}}}
	answer := "With m: +1 replica(s), m's P95 TTFT would go from 4.2 s to 1.9 s (P95 queue 4.0 s → 1.7 s)."
	if got := WhatIfHeadline(r); got != answer {
		t.Fatalf("headline %q, want %q", got, answer)
	}
	if lines := strings.Split(renderWhatIf(t, "md", r), "\n"); len(lines) < 3 || lines[0] != "# What if: m: +1 replica(s)" || lines[2] != "**"+answer+"**" {
		t.Errorf("whatif.md does not open with its answer: %q", lines[:min(3, len(lines))])
	}
	if html := renderWhatIf(t, "html", r); !strings.Contains(html, "</h1>\n<p class=\"answer\" id=\"answer\">With m: &#43;1 replica(s), m&#39;s P95 TTFT would go from 4.2 s to 1.9 s (P95 queue 4.0 s → 1.7 s).</p>") {
		t.Errorf("whatif.html does not open with its answer")
	}
}
