package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
)

// The findings of a comparison.
//
// A component (network, application, queue, model) changed in a slice when
// one of its P50, P95, P99 changed strongly (its 99.9% interval excludes
// 0, queries/compare.sql) and materially: by at least materialMs and materialRel of its baseline
// value; the largest such change is the slice's. Where it changed is found
// one column at a time (CompareDims): a column localizes the change when
// some but not all of its values changed and the others did not change at
// all; of the columns that do, the one with the fewest changed values
// names where (the coarser column on a tie, in CompareDims order). A
// change no column localizes is in all requests. Findings are ranked by
// impact: the change times the share of the target's requests in the
// slices named.
const (
	materialMs  = 5
	materialRel = 0.20
)

// componentAdvice says where to look when a component moved: look for a
// rise and a fall alike, rise and fall for the model, whose own change
// says which. A component other than the model adds ", not the model"
// only when model time is flat where it moved.
var componentAdvice = []struct{ metric, name, look, rise, fall string }{
	{"queue", "server queueing", "look at capacity (replicas, batch size, admission)", "", ""},
	{"network", "network time", "look at the network between the clients and the gateway", "", ""},
	{"application", "application time", "look at the gateway (auth, routing, retries) and its hop to the servers", "", ""},
	{"model", "model time", "", "the model itself is slower: batch size, prompt and output lengths, hardware", "the model itself is faster: batch size, prompt and output lengths, hardware"},
}

// change is a component's material, significant change in one slice.
type change struct {
	q     compare.QuantileChange
	slice *compare.CompareSlice
}

func material(q compare.QuantileChange) bool {
	return q.Strong && large(q)
}

// large: the change is at least materialMs and materialRel of its baseline.
func large(q compare.QuantileChange) bool {
	if q.Delta == nil || q.Baseline == nil {
		return false
	}
	d := math.Abs(*q.Delta)
	return d >= materialMs && d >= materialRel*math.Abs(*q.Baseline)
}

// changeIn returns the largest material change of metric in s.
func changeIn(s *compare.CompareSlice, metric string) (change, bool) {
	m, ok := s.Metric(metric)
	if !ok {
		return change{}, false
	}
	var best change
	found := false
	for _, q := range m.Points {
		if material(q) && (!found || math.Abs(*q.Delta) > math.Abs(*best.q.Delta)) {
			best, found = change{q: q, slice: s}, true
		}
	}
	return best, found
}

type finding struct {
	impact float64
	text   string
}

// CompareFindings words what changed in c, most impact first.
func CompareFindings(c *compare.Comparison) []string {
	if len(c.Slices) == 0 {
		return nil
	}
	all := &c.Slices[0]
	loci := map[string][]change{}
	for _, ca := range componentAdvice {
		if locus, ok := locate(c, all, ca.metric); ok {
			loci[ca.metric] = locus
		}
	}
	var out []finding
	for _, ca := range componentAdvice {
		locus, ok := loci[ca.metric]
		if !ok {
			continue
		}
		share := 0.0
		for _, ch := range locus {
			if all.TargetN > 0 {
				share += float64(ch.slice.TargetN) / float64(all.TargetN)
			}
		}
		top := locus[0]
		impact := math.Abs(*top.q.Delta) * share
		most := ""
		if top.slice.All {
			most = mostIn(c, ca.metric, top.q)
		}
		look := ca.look
		if ca.metric == "model" {
			look = ca.rise
			if *top.q.Delta < 0 {
				look = ca.fall
			}
		}
		out = append(out, finding{impact, componentSentence(ca.name, ca.metric, look, locus, most, loci["model"] != nil)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].impact > out[j].impact })
	var texts []string
	for _, f := range out {
		texts = append(texts, f.text)
	}
	if len(texts) == 0 {
		e2e, ok := changeIn(all, "client_e2e")
		if ok {
			texts = append(texts, fmt.Sprintf("%s client E2E of all requests %s %s (n=%d vs %d), with no component changed on its own beyond its noise.",
				quantileLabel(e2e.q), verb(*e2e.q.Delta), fmtAbsMs(*e2e.q.Delta), e2e.q.BaselineN, e2e.q.TargetN))
		} else {
			texts = append(texts, fmt.Sprintf("No significant change: no figure of all requests, of any --by slice or of any one %s moved beyond its noise (its 99.9%% interval of the difference excluding 0) by at least %d ms and %.0f%% of its baseline.",
				strings.Join(compare.CompareDims, ", "), materialMs, materialRel*100))
		}
	}
	return texts
}

// locate finds where metric changed: the changed slices of the column that
// localizes it, largest change first, else all requests.
func locate(c *compare.Comparison, all *compare.CompareSlice, metric string) ([]change, bool) {
	var bestCol []change
	bestCount := 0
	for _, d := range compare.CompareDims {
		var changed []change
		values, quiet := 0, 0
		for i := range c.Dims {
			s := &c.Dims[i]
			if len(s.Columns) != 1 || s.Columns[0] != d || s.Values[0] == "(none)" || !comparable(s, metric) {
				continue
			}
			values++
			if ch, ok := changeIn(s, metric); ok {
				changed = append(changed, ch)
			} else if !anySignificant(s, metric) {
				quiet++
			}
		}
		if len(changed) == 0 || len(changed) == values || len(changed)+quiet != values {
			continue
		}
		// One direction only: a column whose values moved both ways
		// says no single "where".
		up := *changed[0].q.Delta > 0
		mixed := false
		for _, ch := range changed {
			if (*ch.q.Delta > 0) != up {
				mixed = true
			}
		}
		if mixed {
			continue
		}
		if bestCol == nil || len(changed) < bestCount {
			bestCol, bestCount = changed, len(changed)
		}
	}
	allCh, allChanged := changeIn(all, metric)
	if bestCol != nil && allChanged && all.TargetN > 0 {
		// A change of all requests is localized only by a minority of
		// the traffic: else the quiet values are just smaller slices.
		n := int64(0)
		for _, ch := range bestCol {
			n += ch.slice.TargetN
		}
		if 2*n > all.TargetN {
			bestCol = nil
		}
	}
	if bestCol != nil {
		sort.SliceStable(bestCol, func(i, j int) bool { return math.Abs(*bestCol[i].q.Delta) > math.Abs(*bestCol[j].q.Delta) })
		return bestCol, true
	}
	if allChanged {
		return []change{allCh}, true
	}
	return nil, false
}

// mostIn names, for a change of all requests, the value of the first of
// CompareDims whose change at the same quantile is surely the largest:
// its 95% interval lies above every other value's (below, for a fall).
// The values are set side by side over the same requests' time, so one
// burst weighs on all of them alike: the intervals are those of
// independent samples (LoIndep, HiIndep), while the change itself needed
// the intervals that count one backlog as one event.
func mostIn(c *compare.Comparison, metric string, at compare.QuantileChange) string {
	if s := mostInAt(c, metric, at.P, *at.Delta > 0); s != "" || at.P == 0.5 {
		return s
	}
	// Slices too small for the tail quantile may still tell at the median.
	return mostInAt(c, metric, 0.5, *at.Delta > 0)
}

func mostInAt(c *compare.Comparison, metric string, p float64, up bool) string {
	for _, d := range compare.CompareDims {
		var qs []compare.QuantileChange
		var labels []string
		for i := range c.Dims {
			s := &c.Dims[i]
			if s.Columns[0] != d || s.Values[0] == "(none)" {
				continue
			}
			q := s.Point(metric, p)
			if q.LoIndep == nil || q.HiIndep == nil || q.Delta == nil {
				continue
			}
			qs, labels = append(qs, q), append(labels, s.Label)
		}
		if len(qs) < 2 {
			continue
		}
		best := 0
		for i, q := range qs {
			if (up && *q.Delta > *qs[best].Delta) || (!up && *q.Delta < *qs[best].Delta) {
				best = i
			}
		}
		sure, next := true, -1
		for i, q := range qs {
			if i == best {
				continue
			}
			if (up && *qs[best].LoIndep <= *q.HiIndep) || (!up && *qs[best].HiIndep >= *q.LoIndep) {
				sure = false
			}
			if next < 0 || (up && *q.Delta > *qs[next].Delta) || (!up && *q.Delta < *qs[next].Delta) {
				next = i
			}
		}
		if sure && large(qs[best]) && ((up && *qs[best].LoIndep > 0) || (!up && *qs[best].HiIndep < 0)) {
			return fmt.Sprintf("; most in %s (%s at %s, against %s in %s)", labels[best], fmtSignedV(*qs[best].Delta), quantileLabel(qs[best]), fmtSignedV(*qs[next].Delta), labels[next])
		}
	}
	return ""
}

// comparable reports whether some quantile of metric in s has enough
// samples on both sides to be compared.
func comparable(s *compare.CompareSlice, metric string) bool {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if !q.TooFew && q.Delta != nil {
			return true
		}
	}
	return false
}

func anySignificant(s *compare.CompareSlice, metric string) bool {
	m, _ := s.Metric(metric)
	for _, q := range m.Points {
		if q.Significant {
			return true
		}
	}
	return false
}

// componentSentence words one component's finding. Every figure it
// quotes is worded by its own sign and significance: model time is
// "flat" only where its change is not significant and under materialRel
// of its baseline, and never beside a finding of the model's own
// (modelFinding).
func componentSentence(name, metric, look string, locus []change, most string, modelFinding bool) string {
	top := locus[0]
	q := top.q
	var where []string
	for _, ch := range locus {
		where = append(where, ch.slice.Label)
	}
	in := "in all requests"
	if !top.slice.All {
		in = "in " + strings.Join(where, " and ")
	}
	s := fmt.Sprintf("%s %s %s %s at %s (%s → %s, %s; 95%% interval %s)",
		capital(name), verb(*q.Delta), fmtAbsMs(*q.Delta), in, quantileLabel(q), fmtMsV(q.Baseline), fmtMsV(q.Target), fmtN(q), fmtInterval(q.Lo, q.Hi))
	if len(locus) > 1 {
		s += "; largest in " + top.slice.Label
	}
	s += most
	if e2e := top.slice.Point("client_e2e", 0.95); e2e.Delta != nil {
		s += fmt.Sprintf(". There P95 client E2E %s", describe(e2e))
	}
	if metric == "model" {
		return s + ": " + look + "."
	}
	m := top.slice.Point("model", q.P)
	switch {
	case modelFinding:
		return s + ", and model time changed too (its own finding): " + look + ", and at the model."
	case m.Delta == nil:
		return s + ": " + look + "."
	case material(m):
		return s + fmt.Sprintf(" and model time %s at %s too (%s): both the model and %s.", verb(*m.Delta), quantileLabel(m), fmtRel(m), strings.TrimSuffix(name, " time"))
	case m.TooFew:
		return s + fmt.Sprintf(", while model time has too few samples at %s to tell: %s.", quantileLabel(m), look)
	case !m.Significant && flat(m):
		return s + fmt.Sprintf(", while model time is flat (%s %s, not significant): %s, not the model.", quantileLabel(m), fmtRel(m), look)
	case !m.Significant:
		return s + fmt.Sprintf(", while model time moved %s at %s within its noise (95%% interval %s): %s.", fmtRel(m), quantileLabel(m), fmtInterval(m.Lo, m.Hi), look)
	}
	short := "its 99.9% interval holding 0, short of a finding"
	if m.Strong {
		short = fmt.Sprintf("under the %d ms and %.0f%% of its baseline a finding needs", materialMs, materialRel*100)
	}
	return s + fmt.Sprintf(", and model time %s %s at %s (95%% interval %s; %s): %s, and at the model.",
		verb(*m.Delta), fmtRel(m), quantileLabel(m), fmtInterval(m.Lo, m.Hi), short, look)
}

// flat: the change is under materialMs or materialRel of the baseline.
func flat(q compare.QuantileChange) bool {
	return q.Delta != nil && q.Baseline != nil && !large(q)
}

// fmtN is "n=2203 vs 1164", with the effective numbers where requests
// cluster in time (a side's design effect of 1.5 or more).
func fmtN(q compare.QuantileChange) string {
	s := fmt.Sprintf("n=%d vs %d", q.BaselineN, q.TargetN)
	b, t := q.EffectiveN()
	if b <= float64(q.BaselineN)/1.5 || t <= float64(q.TargetN)/1.5 {
		s += fmt.Sprintf(", as %.0f vs %.0f independent samples, the requests clustering in time", b, t)
	}
	return s
}

// fmtInterval is "+1.2 ms to +3.4 ms", "+1.2 ms or more" (no upper bound),
// "up to +3.4 ms" (no lower one) or "unbounded".
func fmtInterval(lo, hi *float64) string {
	switch {
	case lo != nil && hi != nil:
		return fmtSigned(lo) + " to " + fmtSigned(hi)
	case lo != nil:
		return fmtSigned(lo) + " or more"
	case hi != nil:
		return "up to " + fmtSigned(hi)
	}
	return "unbounded"
}

func describe(q compare.QuantileChange) string {
	switch {
	case q.TooFew:
		return fmt.Sprintf("moved %s (too few samples to tell, n=%d vs %d)", fmtSignedV(*q.Delta), q.BaselineN, q.TargetN)
	case !q.Significant:
		return fmt.Sprintf("did not change significantly (%s, n=%d vs %d)", fmtSignedV(*q.Delta), q.BaselineN, q.TargetN)
	}
	return fmt.Sprintf("%s %s (%s → %s, n=%d vs %d)", verb(*q.Delta), fmtAbsMs(*q.Delta), fmtMsV(q.Baseline), fmtMsV(q.Target), q.BaselineN, q.TargetN)
}

func verb(d float64) string {
	if d < 0 {
		return "fell"
	}
	return "rose"
}

// quantileLabel is "P50", "P95" or "P99".
func quantileLabel(q compare.QuantileChange) string { return fmt.Sprintf("P%g", q.P*100) }

// formatDuration prints a duration in ms as "150.0 ms", or from a second
// up as "1.80 s": how compare and the trend say an amount of time.
func formatDuration(v float64) string {
	if math.Abs(v) >= 1000 {
		return fmt.Sprintf("%.2f s", v/1000)
	}
	return fmt.Sprintf("%.1f ms", v)
}

// fmtAbsMs prints |d| ms as "1.8 s" or "150 ms".
func fmtAbsMs(d float64) string { return formatDuration(math.Abs(d)) }

func fmtMsV(p *float64) string {
	if p == nil {
		return "–"
	}
	return formatDuration(*p)
}

func fmtSignedV(v float64) string {
	if v >= 0 {
		return "+" + formatDuration(v)
	}
	return "−" + formatDuration(-v)
}

func fmtSigned(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmtSignedV(*p)
}

// fmtRel is the change relative to the baseline, "+2%", else the change.
func fmtRel(q compare.QuantileChange) string {
	if q.Delta == nil {
		return "–"
	}
	if q.Baseline != nil && math.Abs(*q.Baseline) > 0 {
		return fmt.Sprintf("%+.0f%%", 100**q.Delta / *q.Baseline)
	}
	return fmtSignedV(*q.Delta)
}

// TrendChangeText says the change in a sentence, with both n, its interval and
// whether it is larger than the noise.
func TrendChangeText(c analyze.TrendChange) string {
	in := "of all requests"
	if !c.All {
		in = "in " + c.Slice
	}
	v := "rose"
	if *c.Delta < 0 {
		v = "fell"
	} else if *c.Delta == 0 {
		v = "did not move"
	}
	abs := math.Abs(*c.Delta)
	amount := strings.TrimPrefix(strings.TrimPrefix(trendSigned(c.TrendFigure, &abs), "+"), "−")
	if *c.Delta == 0 {
		amount = ""
	} else {
		amount = " " + amount
	}
	verdict := "within the noise"
	if c.Significant {
		verdict = "larger than the noise"
		if c.Worse() {
			verdict += " (worse)"
		} else {
			verdict += " (better)"
		}
	}
	on := "on "
	if strings.HasPrefix(c.Period, "week of") {
		on = "in the "
	}
	return fmt.Sprintf("%s %s %s%s %s%s against %s (%s → %s, n=%d vs %d; 95%% interval %s to %s): %s.",
		capital(trendTitle(c.TrendFigure)), in, v, amount, on, c.Period, c.PrevLabel, trendValue(c.TrendFigure, c.PrevValue), trendValue(c.TrendFigure, c.Value),
		c.PrevN, c.N, trendSigned(c.TrendFigure, c.Lo), trendSigned(c.TrendFigure, c.Hi), verdict)
}
