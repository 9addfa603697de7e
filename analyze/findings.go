package analyze

import (
	"fmt"
	"strings"
	"time"
)

// Thresholds for the "client time grows while model time stays flat"
// finding: client P95/P50 at least clientSpread while model P95/P50 stays
// below modelFlat.
const (
	clientSpread = 1.5
	modelFlat    = 1.2
)

func ms(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f ms", *p)
}

func byName(cs []Component, name string) Component {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return Component{Name: name}
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// FormatWindow renders a sample window of start times in UTC with
// millisecond precision, e.g. "2026-03-01 12:00:00.000 – 12:00:08.000 UTC"
// (the date is repeated only when it changes); "–" when empty.
func FormatWindow(first, last *time.Time) string {
	if first == nil || last == nil {
		return "–"
	}
	a, b := first.UTC(), last.UTC()
	const day, clock = "2006-01-02 ", "15:04:05.000"
	end := b.Format(clock)
	if a.Format(day) != b.Format(day) {
		end = b.Format(day + clock)
	}
	return a.Format(day+clock) + " – " + end + " UTC"
}

// dominant returns the component with the largest mean over the slowest
// 5%, or false when none has one.
func dominant(cs []Component) (Component, bool) {
	var best Component
	found := false
	for _, c := range cs {
		if c.TailMean == nil {
			continue
		}
		if !found || *c.TailMean > *best.TailMean {
			best, found = c, true
		}
	}
	return best, found
}

func tailMeans(cs []Component) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %s (n=%d)", c.Name, ms(c.TailMean), c.TailN)
	}
	return strings.Join(parts, ", ")
}

// findings states in plain sentences what the numbers in r show.
func findings(r *Result) []string {
	var out []string
	cov := r.Coverage
	if cov.Requests == 0 {
		return []string{"No requests were found: nothing to attribute."}
	}
	for _, t := range []struct {
		name string
		n    int64
		lost string
	}{
		{"client", cov.Client, "client E2E, client TTFT and network time"},
		{"gateway", cov.Gateway, "network and application time"},
		{"server", cov.Server, "server times, queue, model and application time"},
	} {
		if miss := cov.Requests - t.n; miss > 0 {
			out = append(out, fmt.Sprintf("%d of %d requests have no %s record, so their %s are unknown (shown as –, never estimated).", miss, cov.Requests, t.name, t.lost))
		}
	}
	if r.Anomalous > 0 {
		out = append(out, fmt.Sprintf("%s anomalous (a tier's own times out of order or a negative component); kept, and counted by reason under Anomalies.", plural(r.Anomalous, "request is", "requests are")))
	}
	if r.Retried > 0 {
		out = append(out, fmt.Sprintf("%s more than one distinct record on a tier (retries reusing the ID); the latest attempt on that tier's clock is used.", plural(r.Retried, "request ID has", "request IDs have")))
	}
	if r.RejectsTotal > 0 {
		out = append(out, fmt.Sprintf("%s rejected at ingest (see Rejected lines).", plural(r.RejectsTotal, "input line was", "input lines were")))
	}

	for _, s := range r.Slices {
		if s.ClientE2E.N == 0 {
			out = append(out, fmt.Sprintf("In %s, no request has a client E2E time (n=0): the user-visible latency cannot be attributed.", s.Label))
			continue
		}
		model := byName(s.E2E, "model")
		out = append(out, fmt.Sprintf("In %s (window %s), P95 client E2E is %s (n=%d) while P95 model time is %s (n=%d) and P95 inference-only (server E2E) is %s (n=%d).",
			s.Label, FormatWindow(s.WindowFirst, s.WindowLast), ms(s.ClientE2E.P95), s.ClientE2E.N, ms(model.P95), model.N, ms(s.ServerE2E.P95), s.ServerE2E.N))

		if d, ok := dominant(s.E2E); ok && s.E2ETailN > 0 {
			out = append(out, fmt.Sprintf("In %s, the slowest 5%% (client E2E above P95 %s, n=%d) spend the most time in %s: mean over the slowest 5%% %s of %s mean client E2E (%s).",
				s.Label, ms(s.E2ETailThreshold), s.E2ETailN, d.Name, ms(d.TailMean), ms(s.E2ETailClientE2E), tailMeans(s.E2E)))
		} else {
			out = append(out, fmt.Sprintf("In %s, too few requests with client E2E (n=%d) to single out the slowest 5%%.", s.Label, s.ClientE2E.N))
		}

		c := s.ClientE2E
		if c.P50 != nil && c.P95 != nil && model.P50 != nil && model.P95 != nil &&
			*c.P50 > 0 && *model.P50 > 0 &&
			*c.P95 >= clientSpread**c.P50 && *model.P95 < modelFlat**model.P50 {
			q, n, a := byName(s.E2E, "queue"), byName(s.E2E, "network"), byName(s.E2E, "application")
			out = append(out, fmt.Sprintf("In %s, client E2E grows from %s at P50 to %s at P95 while model time stays flat (%s to %s): the tail comes from outside the model; look at queueing (P95 %s), network (P95 %s) and application (P95 %s).",
				s.Label, ms(c.P50), ms(c.P95), ms(model.P50), ms(model.P95), ms(q.P95), ms(n.P95), ms(a.P95)))
		}

		if d, ok := dominant(s.TTFT); ok && s.TTFTTailN > 0 {
			out = append(out, fmt.Sprintf("In %s, the slowest 5%% by client TTFT (above P95 %s, n=%d) spend the most of their TTFT in %s: mean over the slowest 5%% %s of %s mean client TTFT.",
				s.Label, ms(s.TTFTTailThreshold), s.TTFTTailN, d.Name, ms(d.TailMean), ms(s.TTFTTailClientTTFT)))
		}
	}
	return out
}
