package whatif

import (
	"embed"
	"fmt"
	htmltemplate "html/template"
	"io"
	"math"
	"strings"
	"text/template"
	"time"

	"github.com/infertrace/infertrace/analyze"
)

//go:embed templates/*.tmpl
var templates embed.FS

// funcs are the templates' functions, for Markdown and HTML alike.
var funcs = map[string]any{
	"join":   strings.Join,
	"tolPct": func() float64 { return TolerancePct },
	"tolMs":  func() float64 { return ToleranceMs },
	"figs":   func() []string { return []string{"queue", "TTFT", "E2E"} },
	"pcts":   func() []string { return []string{"P50", "P95", "P99"} },
	"fig": func(f Figures, i, k int) *float64 {
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
	"slots":      func(e ReplicaEvidence) int64 { return e.MaxBatch },
	"routeShown": func() float64 { return RouteShown },
	"minRoute":   func() int { return MinRouteEvidence },
	"missRatio":  func() string { return fmt.Sprintf("%g×", RouteMissRatio) },
	"policies":   policyList,
	"predCell":   predCell,
	"r2": func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	},
	"maxAdded": func() int { return ContractMaxAdded },
	"added":    addedText,
	"slotsWhy": func(e ReplicaEvidence) string {
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
	mdTemplate   = template.Must(template.New("whatif.md.tmpl").Funcs(funcs).ParseFS(templates, "templates/whatif.md.tmpl"))
	htmlTemplate = htmltemplate.Must(htmltemplate.New("whatif.html.tmpl").Funcs(funcs).ParseFS(templates, "templates/whatif.html.tmpl"))
)

// policyList names the policies: "least loaded, round robin and random".
func policyList(ps []Policy) string {
	var names []string
	for _, p := range ps {
		names = append(names, p.String())
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// predCell is a model's predicted figure i (queue, TTFT, E2E) at
// percentile k: its value, "low – high" under several plausible policies,
// or why there is none.
func predCell(m ModelResult, i, k int) string {
	if !m.Fits {
		return "doesn't fit"
	}
	at := func(f Figures) *float64 { return [3][3]*float64{f.Queue, f.TTFT, f.E2E}[i][k] }
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

// dur is a duration in ms as people say it: "372 ms", "12.3 s".
func human(v *float64) string {
	switch {
	case v == nil:
		return "–"
	case math.Abs(*v) < 1000:
		return fmt.Sprintf("%.0f ms", *v)
	}
	return fmt.Sprintf("%.1f s", *v/1000)
}

// addedText names the replicas the contract's search added: "m +2
// replica(s), n +1 replica(s)".
func addedText(c *ContractResult) string {
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
func contractClause(c *ContractResult, changed bool) string {
	added := addedText(c)
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

// Headline is the one sentence that answers the what-if: per model, the
// P95 TTFT and queue as-is and predicted, or that its queue grows without
// bound and how many replicas it needs, or why there is no prediction;
// with a contract, whether it holds and with how many replicas more (first
// when no change is asked: then the contract is the question).
func (r *Result) Headline() string {
	s := r.headline()
	if r.Contract == nil {
		return s
	}
	c := contractClause(r.Contract, r.Changed)
	if !r.Changed {
		return strings.ToUpper(c[:1]) + c[1:] + "; " + strings.ToLower(s[:1]) + s[1:]
	}
	return strings.TrimSuffix(s, ".") + "; " + c + "."
}

func (r *Result) headline() string {
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
				m.Model, human(m.AsIs.TTFT[1]), human(m.Low.TTFT[1]), human(m.High.TTFT[1]), human(m.AsIs.Queue[1]), human(m.Low.Queue[1]), human(m.High.Queue[1])))
		default:
			parts = append(parts, fmt.Sprintf("%s's P95 TTFT would go from %s to %s (P95 queue %s → %s)",
				m.Model, human(m.AsIs.TTFT[1]), human(m.Predicted.TTFT[1]), human(m.AsIs.Queue[1]), human(m.Predicted.Queue[1])))
		}
	}
	if len(same) > 0 {
		parts = append(parts, strings.Join(same, ", ")+" would not change (neither its pool nor its traffic does)")
	}
	return "With " + strings.Join(r.Changes, "; ") + ", " + strings.Join(parts, "; ") + "."
}

// Markdown writes the what-if's answer.
func Markdown(w io.Writer, r *Result) error {
	return mdTemplate.Execute(w, r)
}

// HTML writes the what-if's answer as one self-contained page (no script,
// no file or address it loads), every string of the logs escaped.
func HTML(w io.Writer, r *Result) error {
	return htmlTemplate.Execute(w, r)
}
