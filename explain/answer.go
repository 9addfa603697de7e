package explain

import "math"

// The noise rule of "above P95": a request's figure is above its slice's
// P95 only when it exceeds it by more than the P95's own noise, that is
// when it is above both
//
//   - the upper bound of the P95's 95% confidence interval (the order
//     statistic of rank pct_hi_rank(n, 0.95), queries/macros.sql), when
//     that bound is closed (110 samples or more), and
//   - P95 + max(NoiseFloorMs, NoiseFloorShare × |P95|), whatever n.
//
// A P95 from too few samples (pct_too_small) flags nothing. docs/compare.md
// states the rule for users.
const (
	NoiseFloorMs    = 1.0
	NoiseFloorShare = 0.05
)

// AboveP95 applies the noise rule to value v against a slice's P95 and the
// upper bound of its interval (nil: open).
func AboveP95(v, p95 float64, p95Hi *float64) bool {
	t := p95 + math.Max(NoiseFloorMs, NoiseFloorShare*math.Abs(p95))
	if p95Hi != nil && *p95Hi > t {
		t = *p95Hi
	}
	return v > t
}

// Answer is what answers "why was it slow?" for one request, as figures:
// the largest part of its end-to-end time and of its TTFT, with its share.
// report writes the sentence.
type Answer struct {
	E2E  Breakdown
	TTFT *Breakdown // nil when no TTFT figure of the request is known (or it was not streamed and the client logged none)
}

// Part is one component's time.
type Part struct {
	Metric string // a Component's metric: "queue", "upstream", ...
	Ms     float64
}

// Breakdown is how one total (the E2E or the TTFT) divides.
type Breakdown struct {
	// Total is the metric the parts add up to: "client_e2e", else
	// "gateway_e2e" (no client record: the time before the gateway is not
	// in the logs), for TTFT "client_ttft"; TotalMs nil when unknown.
	Total   string
	TotalMs *float64
	// Top is the known part with the most time (Metric "" when none is
	// known or none is positive), Share its fraction of TotalMs (0 when
	// the total is unknown); Sub, when Top is model, the larger of
	// prefill and decode.
	Top   Part
	Share float64
	Sub   *Part
	// UnknownMs is TotalMs less its known parts, time no component holds
	// because a tier's time is missing (NULL stays unknown: it is never
	// given to another component); Unknown names the components of the
	// total whose value is NULL and that no not-split component covers.
	UnknownMs float64
	Unknown   []string
}

// Gap reports whether the unknown part of the total is worth saying: at
// least NoiseFloorMs and 1% of the total.
func (b Breakdown) Gap() bool {
	return b.TotalMs != nil && b.UnknownMs >= NoiseFloorMs && b.UnknownMs >= 0.01*math.Abs(*b.TotalMs)
}

// UnknownLargest reports whether the unknown part is larger than the
// largest known one: then no component may be said to dominate.
func (b Breakdown) UnknownLargest() bool {
	return b.Gap() && b.UnknownMs >= b.Top.Ms
}

// part is one component of a total and the split components a not-split
// one stands for.
type partDef struct {
	metric string
	covers []string
}

var (
	e2eParts = []partDef{
		{"network", nil}, {"application", nil}, {"queue", nil}, {"model", nil},
		{"upstream", []string{"application", "queue", "model"}},
		{"network_application", []string{"network", "application"}},
		{"unsplit", []string{"network", "application", "queue", "model"}},
	}
	gatewayParts = []partDef{
		{"application", nil}, {"queue", nil}, {"model", nil},
		{"upstream", []string{"application", "queue", "model"}},
	}
	ttftParts = []partDef{
		{"ttft_network", nil}, {"ttft_application", nil}, {"ttft_queue", nil}, {"ttft_model", nil},
		{"ttft_network_application", []string{"ttft_network", "ttft_application"}},
		{"ttft_unsplit", []string{"ttft_network", "ttft_application", "ttft_queue", "ttft_model"}},
	}
)

// answer computes a request's Answer from its figures by metric (nil:
// NULL): the Components' metrics and the not-split ones; streamed: its
// response was streamed or may have been (no client record); else its TTFT
// is none without a client TTFT.
func answer(v map[string]*float64, streamed bool) Answer {
	var a Answer
	total, parts := "client_e2e", e2eParts
	if v["client_e2e"] == nil && v["gateway_e2e"] != nil {
		// Without a client, the parts add up to the gateway's E2E and
		// network is no part of it.
		total, parts = "gateway_e2e", gatewayParts
	}
	a.E2E = breakdown(total, v, parts)
	if a.E2E.Top.Metric == "model" {
		for _, m := range []string{"prefill", "decode"} {
			if p := v[m]; p != nil && (a.E2E.Sub == nil || *p > a.E2E.Sub.Ms) {
				a.E2E.Sub = &Part{Metric: m, Ms: *p}
			}
		}
	}
	// A response that was not streamed has no first token the client
	// saw: its TTFT parts (ttft_queue is its queue) answer nothing.
	known := v["client_ttft"] != nil
	for _, p := range ttftParts {
		known = known || (streamed && v[p.metric] != nil)
	}
	if known {
		t := breakdown("client_ttft", v, ttftParts)
		a.TTFT = &t
	}
	return a
}

func breakdown(total string, v map[string]*float64, parts []partDef) Breakdown {
	b := Breakdown{Total: total, TotalMs: v[total]}
	covered := map[string]bool{}
	sum := 0.0
	for _, p := range parts {
		x := v[p.metric]
		if x == nil {
			continue
		}
		covered[p.metric] = true
		for _, c := range p.covers {
			covered[c] = true
		}
		sum += *x
		if *x > 0 && *x > b.Top.Ms {
			b.Top = Part{Metric: p.metric, Ms: *x}
		}
	}
	for _, p := range parts {
		if p.covers == nil && !covered[p.metric] {
			b.Unknown = append(b.Unknown, p.metric)
		}
	}
	if b.TotalMs != nil {
		b.UnknownMs = math.Max(0, *b.TotalMs-sum)
		if *b.TotalMs > 0 && b.Top.Metric != "" {
			b.Share = b.Top.Ms / *b.TotalMs
		}
	}
	return b
}
