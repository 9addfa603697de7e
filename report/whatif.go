package report

import (
	"fmt"
	htmltemplate "html/template"
	"io"
	"math"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/whatif"
)

// whatIfFuncs are the what-if templates' functions, for Markdown and HTML
// alike.
var whatIfFuncs = map[string]any{
	"join":   strings.Join,
	"tolPct": func() float64 { return whatif.TolerancePct },
	"tolMs":  func() float64 { return whatif.ToleranceMs },
	"figs":   func() []string { return []string{"queue", "TTFT", "E2E"} },
	"pcts":   func() []string { return []string{"P50", "P95", "P99"} },
	"fig": func(f whatif.Figures, i, k int) *float64 {
		return [3][3]*float64{f.Queue, f.TTFT, f.E2E}[i][k]
	},
	"ms": func(v *float64) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f", *v)
	},
	"num": func(v *float64, prec int) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.*f", prec, *v)
	},
	"pct": func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) },
	"dur": func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"window": func(w analyze.Window) string {
		if w.IsZero() {
			return "at any time"
		}
		return "in " + w.String()
	},
	"span": func(from, to *time.Time) string {
		if from == nil || to == nil {
			return "at unknown times"
		}
		return from.UTC().Format(time.RFC3339Nano) + " … " + to.UTC().Format(time.RFC3339Nano)
	},
	"slots":      func(e whatif.ReplicaEvidence) int64 { return e.MaxBatch },
	"routeShown": func() float64 { return whatif.RouteShown },
	"minRoute":   func() int { return whatif.MinRouteEvidence },
	"missRatio":  func() string { return fmt.Sprintf("%g×", whatif.RouteMissRatio) },
	"policies":   whatIfPolicies,
	"predCell":   whatIfPredCell,
	"r2": func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	},
	"maxAdded":  func() int { return whatif.ContractMaxAdded },
	"added":     whatIfAdded,
	"misfits":   func(ms []whatif.Misfit) string { return strings.Join(whatIfMisfits(ms), "; ") },
	"notJudged": whatIfNotJudged,
	"slotsWhy": func(e whatif.ReplicaEvidence) string {
		if e.SlotsBound {
			return fmt.Sprintf("ran at most %d at once and never queued: a lower bound; the replay gives it its model's slots", e.MaxBatch)
		}
		s := fmt.Sprintf("ran at most %d at once; %d requests waited more than 1 ms", e.MaxBatch, e.Queued)
		if e.QueuedBelow > 0 {
			s += fmt.Sprintf(", %d of them into a batch below %d (a limit other than slots?)", e.QueuedBelow, e.MaxBatch-1)
		}
		return s
	},
}

var (
	whatIfMD   = texttemplate.Must(texttemplate.New("whatif.md.tmpl").Funcs(whatIfFuncs).ParseFS(templateFS, "templates/whatif.md.tmpl"))
	whatIfHTML = htmltemplate.Must(htmltemplate.New("whatif.html.tmpl").Funcs(whatIfFuncs).ParseFS(templateFS, "templates/whatif.html.tmpl"))
)

// whatIfView is a what-if's answer with its headline and changes worded
// (Changes hides the Result's).
type whatIfView struct {
	*whatif.Result
	Headline string
	Changes  []string
}

// whatIfChanges words the changes asked: "llama-3.1-70b: +1 replica(s)",
// "traffic ×3 (every model)".
func whatIfChanges(r *whatif.Result) []string {
	var out []string
	for _, c := range r.Changes {
		out = append(out, c.String())
	}
	if r.Traffic != 1 && r.Traffic != 0 {
		out = append(out, fmt.Sprintf("traffic ×%g (every model)", r.Traffic))
	}
	return out
}

// whatIfMisfit says why a model's as-is replay does not fit its logs.
func whatIfMisfit(m whatif.Misfit) string {
	pct := func() float64 { return 100 * float64(m.Missing) / float64(m.Of) }
	switch m.Kind {
	case whatif.MisfitFigure:
		return fmt.Sprintf("%s %s: as-is replay %.1f ms against %.1f ms logged", m.Quantile, m.Figure, m.AsIsMs, m.LoggedMs)
	case whatif.MisfitUnreplayed:
		return fmt.Sprintf("%d of its %d server records (%.0f%%) give no arrival instant, queue or server E2E and are not replayed", m.Missing, m.Of, pct())
	case whatif.MisfitUnlogged:
		return fmt.Sprintf("%d of its %d forwarded requests (%.0f%%) have no server record: a replica whose log is missing would be missing from the pool replayed", m.Missing, m.Of, pct())
	case whatif.MisfitNoRequest:
		return "no request of the model in the window"
	case whatif.MisfitUnplaced:
		return "none of its requests could be placed on a replica, so the pool replayed lacks it"
	}
	return fmt.Sprintf("misfit %d", m.Kind)
}

func whatIfMisfits(ms []whatif.Misfit) []string {
	out := []string{}
	for _, m := range ms {
		out = append(out, whatIfMisfit(m))
	}
	return out
}

// whatIfNotJudged says which case or constraint of the contract the replay
// does not judge, and why.
func whatIfNotJudged(n whatif.NotJudged) string {
	switch n.Reason {
	case whatif.NotKept:
		return fmt.Sprintf("%s: matches on %s, which the replay does not keep", n.Case, n.Column)
	case whatif.SlicesBy:
		return fmt.Sprintf("%s: its slices by %s are not judged, only the case as a whole", n.Case, strings.Join(n.By, ", "))
	case whatif.NotReplayed:
		return fmt.Sprintf("%s: %s is not a server queue, TTFT or E2E percentile the replay gives", n.Case, n.Metric)
	case whatif.ModelMisfit:
		return fmt.Sprintf("%s: %s of it on %s, whose as-is replay does not fit", n.Case, n.Metric, n.Model)
	}
	return fmt.Sprintf("%s: not judged (%d)", n.Case, n.Reason)
}

// whatIfPolicies names the policies: "least loaded, round robin and
// random".
func whatIfPolicies(ps []whatif.Policy) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.String())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// whatIfPredCell is a model's predicted figure i (queue, TTFT, E2E) at
// percentile k: its value, "low – high" under several plausible policies,
// or why there is none.
func whatIfPredCell(m whatif.ModelResult, i, k int) string {
	if !m.Fits {
		return "doesn't fit"
	}
	at := func(f whatif.Figures) *float64 { return [3][3]*float64{f.Queue, f.TTFT, f.E2E}[i][k] }
	if !m.Untouched && m.Saturation.Saturated() {
		return "grows without bound"
	}
	if len(m.ByPolicy) > 1 {
		lo, hi := at(m.Low), at(m.High)
		if lo == nil || hi == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f – %.1f", *lo, *hi)
	}
	if v := at(m.Predicted); v != nil {
		return fmt.Sprintf("%.1f", *v)
	}
	return "–"
}

// humanMs is a duration in ms as people say it: "372 ms", "12.3 s".
func humanMs(v *float64) string {
	switch {
	case v == nil:
		return "–"
	case math.Abs(*v) < 1000:
		return fmt.Sprintf("%.0f ms", *v)
	}
	return fmt.Sprintf("%.1f s", *v/1000)
}

// whatIfAdded names the replicas the contract's search added: "m +2
// replica(s), n +1 replica(s)".
func whatIfAdded(c *whatif.ContractResult) string {
	var parts []string
	for m, n := range c.Added {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s +%d replica(s)", c.Models[m], n))
		}
	}
	return strings.Join(parts, ", ")
}

// contractClause says, with --contract, whether the contract holds in the
// replay and with how many replicas more: "the contract holds", "the
// contract holds only with m +2 replica(s) more", "the contract is not met
// even with m +5 replica(s) more", or that the replay judges none of it.
func contractClause(c *whatif.ContractResult, changed bool) string {
	added := whatIfAdded(c)
	more := ""
	if changed {
		more = " more"
	}
	switch {
	case len(c.Checks) == 0:
		return "the replay can judge none of the contract's constraints"
	case c.Met && added == "":
		return "the contract holds"
	case c.Met:
		return "the contract holds only with " + added + more
	case added == "":
		return "the contract is not met"
	}
	return "the contract is not met even with " + added + more
}

// WhatIfHeadline is the one sentence that answers the what-if: per model,
// the P95 TTFT and queue as-is and predicted, or that its queue grows
// without bound and how many replicas it needs, or why there is no
// prediction; with a contract, whether it holds and with how many replicas
// more (first when no change is asked: then the contract is the question).
func WhatIfHeadline(r *whatif.Result) string {
	s := whatIfPrediction(r)
	if r.Contract == nil {
		return s
	}
	c := contractClause(r.Contract, r.Changed)
	if !r.Changed {
		return strings.ToUpper(c[:1]) + c[1:] + "; " + strings.ToLower(s[:1]) + s[1:]
	}
	return strings.TrimSuffix(s, ".") + "; " + c + "."
}

// whatIfPrediction is the headline without the contract's clause.
func whatIfPrediction(r *whatif.Result) string {
	if !r.Changed {
		var bad []string
		for _, m := range r.Models {
			if !m.Fits {
				bad = append(bad, m.Model)
			}
		}
		if len(bad) == 0 {
			return "The pool as it is, replayed, reproduces the logged queue, TTFT and E2E of every model."
		}
		return "The pool as it is, replayed, does not reproduce the logs of " + strings.Join(bad, ", ") + "."
	}
	var parts, same []string
	for _, m := range r.Models {
		switch {
		case !m.Fits:
			parts = append(parts, m.Model+" gets no prediction (its as-is replay does not fit the logs)")
		case m.Untouched:
			same = append(same, m.Model)
		case m.Saturation.Saturated():
			parts = append(parts, fmt.Sprintf("%s cannot keep up — its queue grows without bound (%.0f%% of what its %d × %d slots serve): it needs at least %d replicas",
				m.Model, 100*m.Saturation.Load, m.Saturation.Replicas, m.Saturation.Slots, m.Saturation.Needed))
		case len(m.ByPolicy) > 1:
			parts = append(parts, fmt.Sprintf("%s's P95 TTFT would go from %s to %s – %s (P95 queue %s → %s – %s), depending on the routing, which the logs do not show",
				m.Model, humanMs(m.AsIs.TTFT[1]), humanMs(m.Low.TTFT[1]), humanMs(m.High.TTFT[1]), humanMs(m.AsIs.Queue[1]), humanMs(m.Low.Queue[1]), humanMs(m.High.Queue[1])))
		default:
			parts = append(parts, fmt.Sprintf("%s's P95 TTFT would go from %s to %s (P95 queue %s → %s)",
				m.Model, humanMs(m.AsIs.TTFT[1]), humanMs(m.Predicted.TTFT[1]), humanMs(m.AsIs.Queue[1]), humanMs(m.Predicted.Queue[1])))
		}
	}
	if len(same) > 0 {
		parts = append(parts, strings.Join(same, ", ")+" would not change (neither its pool nor its traffic does)")
	}
	return "With " + strings.Join(whatIfChanges(r), "; ") + ", " + strings.Join(parts, "; ") + "."
}

// RenderWhatIf writes a what-if's answer as Markdown ("md"), as one
// self-contained HTML page ("html": no script, no file or address it
// loads, every string of the logs escaped) or as JSON ("json"), opening
// with WhatIfHeadline.
func RenderWhatIf(w io.Writer, format string, r *whatif.Result) error {
	v := &whatIfView{Result: r, Headline: WhatIfHeadline(r), Changes: whatIfChanges(r)}
	switch format {
	case "md":
		return whatIfMD.Execute(w, v)
	case "html":
		return whatIfHTML.Execute(w, v)
	case "json":
		return RenderWhatIfJSON(w, r)
	}
	return fmt.Errorf("unknown format %q", format)
}

func whatIfNotJudgedList(ns []whatif.NotJudged) []string {
	out := []string{}
	for _, n := range ns {
		out = append(out, whatIfNotJudged(n))
	}
	return out
}
