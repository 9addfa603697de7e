package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
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

func byName(cs []analyze.Component, name string) analyze.Component {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return analyze.Component{Name: name}
}

// spentIn names where a component's time went, for "spend the most time
// in …": its name, or for time a missing tier leaves not split, what it
// holds and why, e.g. "upstream (application + queue + model, not split
// without a server record)".
func spentIn(c analyze.Component) string {
	if c.NotSplit == "" {
		return c.Name
	}
	return fmt.Sprintf("%s (%s, not split without a %s record)", strings.TrimSuffix(c.Name, " (not split)"), c.NotSplit, c.Missing)
}

// tailMeans lists each component's mean over the slowest 5%, leaving out
// time not split that none of them has.
func tailMeans(cs []analyze.Component) string {
	var parts []string
	for _, c := range cs {
		if c.NotSplit != "" && c.TailN == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s (n=%d)", c.Name, ms(c.TailMean), c.TailN))
	}
	return strings.Join(parts, ", ")
}

// p95Shown reports whether d's P95 may be quoted as a number: it has a
// value and enough samples (Dist.Small, pct_too_small in
// queries/macros.sql: the rule of the tables). A P95 that may not is said
// as "n too small for a P95 (n=…)", and no comparison rests on it.
func p95Shown(d analyze.Dist) bool { return d.P95 != nil && !d.Small[2] }

// compDist is a component's n, P50, P95 and interval as a Dist.
func compDist(c analyze.Component) analyze.Dist {
	return analyze.Dist{N: c.N, P50: c.P50, P95: c.P95, P95CI: c.P95CI, Small: [4]bool{c.Small[0], true, c.Small[1], true}}
}

// tooSmallP95 says why a P95 is not quoted.
func tooSmallP95(n int64) string { return fmt.Sprintf("n too small for a P95 (n=%d)", n) }

// ciText prints a 95% interval as "95% interval [930.0, 972.0] ms", an
// open bound as "…"; "" without either bound.
func ciText(iv analyze.Interval) string {
	if iv.Lo == nil && iv.Hi == nil {
		return ""
	}
	b := func(p *float64) string {
		if p == nil {
			return "…"
		}
		return fmt.Sprintf("%.1f", *p)
	}
	return fmt.Sprintf("95%% interval [%s, %s] ms", b(iv.Lo), b(iv.Hi))
}

// p95Text is d's P95 with its n and interval, "950.1 ms (n=500, 95%
// interval [930.0, 972.0] ms)", or "n too small for a P95 (n=5)".
func p95Text(d analyze.Dist) string {
	if !p95Shown(d) {
		return tooSmallP95(d.N)
	}
	if iv := ciText(d.P95CI); iv != "" {
		return fmt.Sprintf("%s (n=%d, %s)", ms(d.P95), d.N, iv)
	}
	return fmt.Sprintf("%s (n=%d)", ms(d.P95), d.N)
}

// p95Brief is d's P95 without its n, "950.1 ms", or "n too small (n=5)".
func p95Brief(d analyze.Dist) string {
	if !p95Shown(d) {
		return fmt.Sprintf("n too small (n=%d)", d.N)
	}
	return ms(d.P95)
}

// intervalsOverlap reports whether the P95 intervals of a and b are known
// to overlap (false when an open bound leaves it unknown, or they are
// apart).
func intervalsOverlap(a, b analyze.Dist) bool {
	x, y := a.P95CI, b.P95CI
	return x.Lo != nil && x.Hi != nil && y.Lo != nil && y.Hi != nil && *x.Lo <= *y.Hi && *y.Lo <= *x.Hi
}

// Sentences are what a report says of an analyze.Result (and of its
// trend's comparison) in words: the
// headlines of its first screen, the findings about all requests (those
// about the data first) and each slice's own. The analysis returns
// figures; the words are made here, once per report.
type Sentences struct {
	Headlines []Headline
	// Findings are the plain sentences about all requests, those about
	// the data (DataQuality) first.
	Findings []string
	// DataQuality is the part of Findings about the data rather than the
	// latency: joins, anomalies, retries, rejects, server formats.
	DataQuality []string
	// Slices[i] are the sentences about r.Slices[i] alone (none for all
	// requests, whose are Findings).
	Slices [][]string
}

// Say words what the numbers of r show, and what changed in the latest
// period of its trend (trend, from compare.Trend; nil without).
func Say(r *analyze.Result, trend *compare.TrendComparison) *Sentences {
	w := &Sentences{Slices: make([][]string, len(r.Slices))}
	w.Findings = findings(r, w)
	w.Headlines = append(contractHeadlines(r), headlines(r, trend)...)
	return w
}

// findings states in plain sentences what the numbers in r show, setting
// w's DataQuality and Slices on the way.
func findings(r *analyze.Result, w *Sentences) []string {
	var out []string
	cov := r.Coverage
	if cov.Requests == 0 {
		w.DataQuality = inputFindings(r.Inputs)
		return append([]string{"No requests were found: nothing to attribute."}, w.DataQuality...)
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
	out = append(out, dataFindings(r)...)
	w.DataQuality = out
	out = append([]string(nil), out...)
	out = append(out, phaseFindings(r)...)

	// Sentences about all requests lead; those about one slice go with that
	// slice's attribution, so the top of a report stays short.
	for i := range r.Slices {
		s := &r.Slices[i]
		found := sliceFindings(s)
		if s.All {
			out = append(out, found...)
		} else {
			w.Slices[i] = found
		}
	}
	if len(r.Slices) > 1 {
		out = append(out, "Findings about each slice are listed with its attribution, under Attribution by slice.")
	}
	return out
}

// dataFindings are the sentences about the data rather than the latency:
// joins, anomalies, retries, rejects and what the server formats gave.
func dataFindings(r *analyze.Result) []string {
	var out []string
	out = append(out, joinFindings(r)...)
	if r.Anomalous > 0 {
		out = append(out, fmt.Sprintf("%s anomalous (a tier's own times out of order or a negative component); kept, and counted by reason under Anomalies.", plural(r.Anomalous, "request is", "requests are")))
	}
	out = append(out, abortedFindings(r)...)
	if r.Retried > 0 {
		out = append(out, fmt.Sprintf("%s more than one distinct record on a tier (retries reusing the ID); the latest attempt on that tier's clock is used.", plural(r.Retried, "request ID has", "request IDs have")))
	}
	if r.RejectsTotal > 0 {
		out = append(out, fmt.Sprintf("%s rejected at ingest (see Rejected lines).", plural(r.RejectsTotal, "input line was", "input lines were")))
	}
	out = append(out, inputFindings(r.Inputs)...)

	return append(out, formatFindings(r)...)
}

// sliceFindings states what one slice's numbers show. A P95 from too few
// samples is never quoted, and the sentences resting on one (the slowest
// 5%, above the P95; the P50-to-P95 spread) are left out, saying so.
func sliceFindings(s *analyze.Slice) []string {
	var out []string
	{
		if s.ClientE2E.N == 0 {
			return append(out, fmt.Sprintf("In %s, no request has a client E2E time (n=0): the user-visible latency cannot be attributed.", s.Label))
		}
		model := byName(s.E2E, "model")
		out = append(out, fmt.Sprintf("In %s (window %s), %s.", s.Label, analyze.FormatWindow(s.WindowFirst, s.WindowLast),
			p95Clauses([]string{"client E2E", "model time", "inference-only (server E2E)"}, []analyze.Dist{s.ClientE2E, compDist(model), s.ServerE2E})))

		d, ok := analyze.Dominant(s.E2E)
		switch {
		case !p95Shown(s.ClientE2E):
			out = append(out, fmt.Sprintf("In %s, client E2E has %s: its slowest 5%% are not singled out.", s.Label, tooSmallP95(s.ClientE2E.N)))
		case ok && s.E2ETailN > 0:
			out = append(out, fmt.Sprintf("In %s, the slowest 5%% (client E2E above P95 %s, n=%d) spend the most time in %s: mean over the slowest 5%% %s of %s mean client E2E (%s).",
				s.Label, ms(s.E2ETailThreshold), s.E2ETailN, spentIn(d), ms(d.TailMean), ms(s.E2ETailClientE2E), tailMeans(s.E2E)))
		default:
			out = append(out, fmt.Sprintf("In %s, too few requests with client E2E (n=%d) to single out the slowest 5%%.", s.Label, s.ClientE2E.N))
		}

		c, m := s.ClientE2E, compDist(model)
		if p95Shown(c) && p95Shown(m) && c.P50 != nil && m.P50 != nil && !c.Small[0] && !m.Small[0] &&
			*c.P50 > 0 && *m.P50 > 0 &&
			*c.P95 >= clientSpread**c.P50 && *m.P95 < modelFlat**m.P50 {
			q, n, a := byName(s.E2E, "queue"), byName(s.E2E, "network"), byName(s.E2E, "application")
			out = append(out, fmt.Sprintf("In %s, client E2E grows from %s at P50 to %s at P95 while model time stays flat (%s to %s): the tail comes from outside the model; look at queueing (P95 %s), network (P95 %s) and application (P95 %s).",
				s.Label, ms(c.P50), ms(c.P95), ms(m.P50), ms(m.P95), p95Brief(compDist(q)), p95Brief(compDist(n)), p95Brief(compDist(a))))
		}

		if d, ok := analyze.Dominant(s.TTFT); !p95Shown(s.ClientTTFT) && s.ClientTTFT.N > 0 {
			out = append(out, fmt.Sprintf("In %s, client TTFT has %s: its slowest 5%% by TTFT are not singled out.", s.Label, tooSmallP95(s.ClientTTFT.N)))
		} else if ok && s.TTFTTailN > 0 && p95Shown(s.ClientTTFT) {
			out = append(out, fmt.Sprintf("In %s, the slowest 5%% by client TTFT (above P95 %s, n=%d) spend the most of their TTFT in %s: mean over the slowest 5%% %s of %s mean client TTFT.",
				s.Label, ms(s.TTFTTailThreshold), s.TTFTTailN, spentIn(d), ms(d.TailMean), ms(s.TTFTTailClientTTFT)))
		}
	}
	return out
}

// p95Clauses says the P95 of each named distribution: those that may be
// quoted first ("P95 client E2E is 950.1 ms (n=500, …) while P95 model
// time is … and …"), then those from too few samples ("n too small for a
// P95 of model time (n=3) or of …").
func p95Clauses(names []string, ds []analyze.Dist) string {
	var shown, small []string
	for i, d := range ds {
		if p95Shown(d) {
			shown = append(shown, fmt.Sprintf("P95 %s is %s", names[i], p95Text(d)))
		} else {
			small = append(small, fmt.Sprintf("of %s (n=%d)", names[i], d.N))
		}
	}
	var out string
	for i, c := range shown {
		switch {
		case i == 0:
			out = c
		case i == 1:
			out += " while " + c
		default:
			out += " and " + c
		}
	}
	if len(small) > 0 {
		if out != "" {
			out += "; "
		}
		out += "n too small for a P95 " + joinOr(small)
	}
	return out
}

// joinOr joins "a", "b", "c" as "a, b or c".
func joinOr(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Thresholds for comparing a phase with steady state: client P95 must rise
// by at least phaseRise of its steady value, and the model's rise must stay
// below modelShare of the client's rise for the rise to be called outside
// the model.
const (
	phaseRise  = 0.2
	modelShare = 1.0 / 3
)

func phaseByName(ps []analyze.Phase, name string) (analyze.Phase, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return analyze.Phase{}, false
}

func sub(a, b *float64) float64 { return *a - *b }

func signedMs(v float64) string { return fmt.Sprintf("%+.1f ms", v) }

// phaseFindings compares burst and cold requests with steady state and
// points at replicas that warmed up slowly.
func phaseFindings(r *analyze.Result) []string {
	var out []string
	if len(r.Phases) > 0 {
		parts := make([]string, len(r.Phases))
		for i, p := range r.Phases {
			parts[i] = fmt.Sprintf("%d %s", p.Requests, p.Name)
		}
		out = append(out, fmt.Sprintf("Phases detected from the logs: %s requests; each phase is reported on its own under Phases, never merged.", strings.Join(parts, ", ")))
	}
	out = append(out, phaseComparisons(r)...)
	return append(out, coldReplicas(r)...)
}

// phaseComparisons compares the P95 client E2E of burst and of cold
// requests with steady state and says whether the model accounts for the
// difference. A comparison is made only where both sides support the P95
// (p95Shown), quoting both intervals; else it is left out (the Phases
// table shows "n too small").
func phaseComparisons(r *analyze.Result) []string {
	var out []string
	steady, ok := phaseByName(r.Phases, "steady")
	if !ok || !p95Shown(steady.ClientE2E) {
		return nil
	}
	for _, name := range []string{"burst", "cold"} {
		p, ok := phaseByName(r.Phases, name)
		if !ok || !p95Shown(p.ClientE2E) {
			continue
		}
		dc := sub(p.ClientE2E.P95, steady.ClientE2E.P95)
		if dc <= phaseRise**steady.ClientE2E.P95 {
			continue
		}
		head := fmt.Sprintf("In the %s phase (n=%d, window %s), P95 client E2E is %s against %s in steady state, %s",
			name, p.ClientE2E.N, analyze.FormatWindow(p.WindowFirst, p.WindowLast), p95Text(p.ClientE2E), p95Text(steady.ClientE2E), signedMs(dc))
		if intervalsOverlap(p.ClientE2E, steady.ClientE2E) {
			head += " (the two intervals overlap: the rise may be noise)"
		}
		if !p95Shown(p.Model) || !p95Shown(steady.Model) {
			out = append(out, head+fmt.Sprintf("; P95 model time is %s in the %s phase and %s in steady state, so whether the model accounts for the rise is not said.",
				p95Brief(p.Model), name, p95Brief(steady.Model)))
			continue
		}
		dm := sub(p.Model.P95, steady.Model.P95)
		if dm < modelShare*dc {
			var rs []string
			best, bestD := "", 0.0
			for _, c := range []struct {
				name string
				a, b analyze.Dist
			}{{"queueing", p.Queue, steady.Queue}, {"network", p.Network, steady.Network}, {"application", p.Application, steady.Application}} {
				if !p95Shown(c.a) || !p95Shown(c.b) {
					continue
				}
				d := sub(c.a.P95, c.b.P95)
				rs = append(rs, fmt.Sprintf("%s P95 %s (n=%d) to %s (n=%d), %s", c.name, ms(c.b.P95), c.b.N, ms(c.a.P95), c.a.N, signedMs(d)))
				if d > bestD {
					best, bestD = c.name, d
				}
			}
			sentence := head + fmt.Sprintf(", while P95 model time stays comparatively flat, %s to %s, %s or %.0f%% of the rise: the extra time is spent outside the model", p95Text(steady.Model), p95Text(p.Model), signedMs(dm), 100*dm/dc)
			if best != "" {
				sentence += fmt.Sprintf(", mostly in %s; %s.", best, strings.Join(rs, "; "))
			} else {
				sentence += "."
			}
			out = append(out, sentence)
		} else {
			out = append(out, head+fmt.Sprintf(", and P95 model time rises with it, %s to %s, %s: the model itself is slower in this phase.", p95Text(steady.Model), p95Text(p.Model), signedMs(dm)))
		}
	}
	return out
}

// coldReplicas names each replica with cold requests and compares its model
// time per output token with the model's other replicas: only those whose
// P95 the sample supports, and the comparison only when the replica's own
// does.
func coldReplicas(r *analyze.Result) []string {
	var out []string
	for _, rep := range r.Replicas {
		if rep.Cold == 0 || rep.ModelPerToken[1] == nil {
			continue
		}
		var others []string
		for _, o := range r.Replicas {
			if o.Replica != rep.Replica && o.Model == rep.Model && o.ModelPerToken[1] != nil && !o.ModelPerTokenSmall[1] {
				others = append(others, fmt.Sprintf("%s %s", o.Replica, p95Text(replicaPerToken(o))))
			}
		}
		joined := ""
		if len(r.Slices) > 0 && r.Slices[0].WindowFirst != nil && rep.FirstStart != nil {
			joined = fmt.Sprintf(", %.1f s after the first request of the service", rep.FirstStart.Sub(*r.Slices[0].WindowFirst).Seconds())
		}
		own := replicaPerToken(rep)
		sentence := fmt.Sprintf("Replica %s (%s) served its first request at %s%s, and %s detected as cold (its first by arrival, each slow against the replica's usual decode per token, prefill or queue, and those queued behind them)",
			rep.Replica, rep.Model, analyze.FormatTime(rep.FirstStart), joined, plural(rep.Cold, "request was", "requests were"))
		if !p95Shown(own) {
			out = append(out, sentence+fmt.Sprintf(": its model time per output token has %s.", tooSmallP95(own.N)))
			continue
		}
		sentence += fmt.Sprintf(": its P95 model time per output token is %s", p95Text(own))
		if len(others) > 0 {
			sentence += " against " + strings.Join(others, ", ") + " on the other replicas of the model"
		}
		out = append(out, sentence+".")
	}
	return out
}

// replicaPerToken is a replica's model time per output token as a Dist
// (P50, P95 and the P95's interval).
func replicaPerToken(rep analyze.Replica) analyze.Dist {
	return analyze.Dist{N: rep.ModelPerTokenN, P50: rep.ModelPerToken[0], P95: rep.ModelPerToken[1], P95CI: rep.ModelPerTokenCI,
		Small: [4]bool{rep.ModelPerTokenSmall[0], true, rep.ModelPerTokenSmall[1], true}}
}

// formatFindings says how records of server formats without a request ID
// were matched, what annotation records added, and which formats the split
// of server time comes from.
// methodNames words the join methods of queries/requests.
var methodNames = map[string]string{
	"id":          "by request ID",
	"response_id": "by response ID (mapped back to the request ID)",
	"trace_id":    "by trace ID",
	"trace_order": "by trace ID in start order (several records in one trace)",
	"time":        "matched by time",
}

// joinFindings states the join rate of each pair of tiers that both have
// records, by method, and the client and gateway records that joined
// nothing (server records without an ID are worded by formatFindings).
func joinFindings(r *analyze.Result) []string {
	var out []string
	for _, p := range r.Joins {
		if p.LeftTotal == 0 || p.RightTotal == 0 {
			continue
		}
		var by []string
		for _, m := range p.Methods {
			name := methodNames[m.Method]
			if name == "" {
				name = "by " + m.Method
			}
			by = append(by, fmt.Sprintf("%d %s", m.Requests, name))
		}
		how := ""
		if len(by) > 0 {
			how = ": " + strings.Join(by, ", ")
		}
		out = append(out, fmt.Sprintf("%s↔%s: %s joined, %.1f%% of the %d with a %s record and %.1f%% of the %d with a %s record%s.",
			p.Left, p.Right, plural(p.Joined, "request", "requests"), 100*float64(p.Joined)/float64(p.LeftTotal), p.LeftTotal, p.Left,
			100*float64(p.Joined)/float64(p.RightTotal), p.RightTotal, p.Right, how))
	}
	tiers := 0
	for _, n := range []int64{r.Coverage.Client, r.Coverage.Gateway, r.Coverage.Server} {
		if n > 0 {
			tiers++
		}
	}
	for _, g := range r.GatewayNoID {
		out = append(out, noIDFinding(r, g))
	}
	for _, u := range r.Unjoined {
		if u.NoKey > 0 {
			out = append(out, noKeyFinding(u))
		}
		if u.Tier == "server" || u.NotJoined-u.NoKey == 0 || tiers < 2 {
			continue
		}
		out = append(out, fmt.Sprintf("%d of %d %s records of format %s joined no other tier (no request ID, response ID or trace that matched); each is a request of its own, never merged with another.",
			u.NotJoined-u.NoKey, u.Records-u.NoKey, u.Tier, u.Format))
	}
	return out
}

// noIDFinding says how the gateway records of one format that log no
// request ID joined, and what to log so that they join by ID.
func noIDFinding(r *analyze.Result, g analyze.GatewayNoID) string {
	s := fmt.Sprintf("%s of format %s log no request ID", plural(g.Records, "gateway record", "gateway records"), g.Format)
	left := g.Records - g.Matched
	switch {
	case r.Coverage.Server == 0:
		s += ", and there is no server log to match them to by time: they joined no server record"
	case g.Matched > 0:
		s += fmt.Sprintf(": %d were matched to a server record by time (the clock offset between the hosts estimated from the logs; taken only where one server record fits the gateway record and no other gateway record fits that server record), %d were not", g.Matched, left)
	default:
		s += ": none could be matched to a server record by time"
	}
	if g.Coarse > 0 && r.Coverage.Server > 0 {
		s += fmt.Sprintf(" (%d of them end on whole seconds, as $time_local logs them without $msec: too coarse to match by time)", g.Coarse)
	}
	if left > 0 {
		s += fmt.Sprintf(". The requests of the %d unmatched have no gateway time: their network and application time is not split (network_application_ms where a client and a server record joined), never zero and never moved into another component", left)
	}
	switch g.Format {
	case "nginx":
		s += ". To join every record by ID, add $request_id to the NGINX log_format and pass it upstream as X-Request-Id (proxy_set_header X-Request-Id $request_id), and log $msec for an end to the millisecond."
	case "kong":
		s += ". To join every record by ID, run Kong ≥ 3.5, whose file-log logs request.id, or have clients send an X-Request-Id header, which Kong logs among the request headers and passes upstream."
	default:
		s += ". To join every record by ID, log the request ID the gateway passes upstream (X-Request-Id)."
	}
	return s
}

// noKeyFinding says why gateway records with no request ID, no trace ID and
// no start (NGINX's combined format) join nothing, in no request.
func noKeyFinding(u analyze.UnjoinedRows) string {
	if u.Format == "nginx" {
		return fmt.Sprintf("%s of format nginx carry no request ID and no duration: NGINX's combined format logs neither, only $time_local, the second the response ended. They cannot join the other tiers: not by ID, and not by time either, since without the request's start or duration every request that ended within the same second (give or take the clock offset, which the ends alone bound only to a second) fits, and a match would give no gateway time anyway (no gateway E2E, network or application without a start). They are counted here and are in no request; to join them, log $http_x_request_id with $msec, $request_time and $upstream_response_time (--nginx-format).",
			plural(u.NoKey, "gateway record", "gateway records"))
	}
	return fmt.Sprintf("%s of format %s carry no request ID, no trace ID and no start: they can join nothing and hold no duration, so they are counted here and are in no request.",
		plural(u.NoKey, "gateway record", "gateway records"), u.Format)
}

func formatFindings(r *analyze.Result) []string {
	var out, timed []string
	for _, f := range r.ServerFormats {
		switch {
		case f.Annotation:
			out = append(out, fmt.Sprintf("%s from %s (request IDs, finish reasons and errors, never times) annotate %s; they never count as server records or enter a latency figure.",
				plural(f.Records, "annotation record", "annotation records"), f.Format, plural(f.Annotated, "request", "requests")))
			continue
		case f.MatchPool > 0:
			out = append(out, fmt.Sprintf("%d of %d %s records (%.1f%%) were matched to a gateway record by time, the clock skew between each %s host and gateway host estimated from the logs; %d of the matches were ambiguous (two or more gateway records within the tolerance, the nearest taken); %d stayed unmatched and give no server times.",
				f.ByTime, f.MatchPool, f.Format, 100*float64(f.ByTime)/float64(f.MatchPool), f.Format, f.Ambiguous, f.MatchPool-f.ByTime))
		}
		if unjoined := f.Records - f.WithID; f.MatchPool == 0 && unjoined > 0 {
			out = append(out, fmt.Sprintf("%s of format %s carry no request ID and join no other tier; their times are in no figure.", plural(unjoined, "server record", "server records"), f.Format))
		}
		if f.Requests > 0 {
			timed = append(timed, fmt.Sprintf("%s (%d)", f.Format, f.Requests))
		}
	}
	if len(timed) > 1 {
		out = append(out, fmt.Sprintf("Server records of several formats are joined: %s requests; every server-derived figure names the formats behind it.", strings.Join(timed, ", ")))
	}
	return append(out, joinGaps(r)...)
}

// joinShare is the share of a server format's records that must join a
// gateway or client record; below it the report says why.
const joinShare = 0.9

// joinGaps says, for each server format joining less than joinShare of its
// records to another tier, why in one sentence.
func joinGaps(r *analyze.Result) []string {
	if r.Coverage.Client == 0 && r.Coverage.Gateway == 0 {
		return nil // a server-only run: nothing to join
	}
	formats := map[string]analyze.ServerFormat{}
	for _, f := range r.ServerFormats {
		formats[f.Format] = f
	}
	var out []string
	for _, u := range r.Unjoined {
		f := formats[u.Format]
		if u.Tier != "server" || u.Records == 0 || f.Annotation {
			continue
		}
		joined := u.Records - u.NotJoined
		if float64(joined) >= joinShare*float64(u.Records) {
			continue
		}
		var why string
		switch {
		case f.MatchPool > 0:
			why = tgiWhy(r, f)
		case u.Format == "ollama-gin":
			why = "Ollama's GIN access lines log no request ID, and their own time has no zone (a local time, to the second), so they are not matched by time; Ollama's final JSON objects (ollama-json) are"
		case f.WithID == 0:
			why = fmt.Sprintf("%s logs no request ID that the other tiers know (TensorRT-LLM's executor IDs, Triton's ensemble children), and only TGI and Ollama JSON records (an end and a duration logged) are matched by time", u.Format)
		default:
			why = "their request IDs match no client or gateway record: the gateway may not forward X-Request-Id to the server (or the server rewrote it), or the logs cover different time ranges"
		}
		out = append(out, fmt.Sprintf("Only %d of %d %s server records (%.1f%%) joined a gateway or client record: %s.",
			joined, u.Records, u.Format, 100*float64(joined)/float64(u.Records), why))
	}
	return out
}

// tgiWhy says why TGI (or Ollama JSON) records were not matched by time.
func tgiWhy(r *analyze.Result, f analyze.ServerFormat) string {
	sys := "TGI"
	if f.Format == "ollama-json" {
		sys = "Ollama"
	}
	if r.Coverage.Gateway == 0 {
		return sys + " logs no request ID, and there is no gateway log to match its records to by time"
	}
	spans := int64(0)
	var lost []string
	for _, h := range r.TGIHosts {
		spans = h.GatewaySpans
		if h.Matched == 0 && h.Records > 0 && h.Format == f.Format {
			lost = append(lost, fmt.Sprintf("%s (%d)", h.Host, h.Records))
		}
	}
	if spans == 0 {
		return sys + " logs no request ID, and no gateway record logs both ends of a span (upstream start and end, or start and end) to match it by time"
	}
	var parts []string
	if len(lost) > 0 {
		parts = append(parts, fmt.Sprintf("no clock offset to a gateway host could be estimated for "+sys+" host %s, so none of its records was matched (fewer than 3 of its records agree in duration with a gateway record logged within 60 s of them: the gateway did not see its traffic, or the clocks are further apart)", strings.Join(lost, ", ")))
	}
	if rest := f.MatchPool - f.ByTime - lostRecords(r, f.Format); rest > 0 {
		parts = append(parts, fmt.Sprintf("%d found no gateway record within the tolerance once the clock offset was removed (the gateway did not log those requests, or spent far longer than usual on them before or after the upstream call)", rest))
	}
	if len(parts) == 0 {
		return "their records were matched, but to fewer requests than records"
	}
	return strings.Join(parts, "; ")
}

// lostRecords counts the rows of format (tgi, ollama-json) of hosts none of
// whose rows matched.
func lostRecords(r *analyze.Result, format string) int64 {
	var n int64
	for _, h := range r.TGIHosts {
		if h.Matched == 0 && h.Format == format {
			n += h.Records
		}
	}
	return n
}

// headlines answers the report's questions in short sentences of one or
// two figures each, for its first screen: where the time goes, what changed
// in the burst and cold phases, what stands out, and whether the data can be
// trusted. Findings and tables give every figure with its n.
func headlines(r *analyze.Result, trend *compare.TrendComparison) []Headline {
	var out []Headline
	add := func(topic, format string, args ...any) {
		out = append(out, Headline{Topic: topic, Text: fmt.Sprintf(format, args...)})
	}
	if r.Coverage.Requests == 0 {
		if s := notReadClause(r.Inputs, headlineFiles); s != "" {
			add(HeadlineData, "No requests were found: nothing to attribute; %s.", s)
		} else {
			add(HeadlineData, "No requests were found: nothing to attribute.")
		}
		return out
	}
	for _, h := range trendHeadlines(trend) {
		add(HeadlineTrend, "%s", h)
	}
	for _, h := range timeHeadlines(r) {
		add(HeadlineTime, "%s", h)
	}
	for _, h := range failureHeadlines(r) {
		add(HeadlineFailures, "%s", h)
	}
	for _, h := range phaseHeadlines(r) {
		add(HeadlinePhases, "%s", h)
	}
	for _, h := range standOutHeadlines(r) {
		add(HeadlineStandsOut, "%s", h)
	}
	add(HeadlineData, "%s", dataHeadline(r))
	return out
}

// timeHeadlines says which component the slowest 5% spend the most time
// in, for all requests (E2E and TTFT) and across the slices.
func timeHeadlines(r *analyze.Result) []string {
	var out []string
	var per map[string][]string
	var names []string
	slices := 0
	for i := range r.Slices {
		s := &r.Slices[i]
		if s.All {
			if d, ok := analyze.Dominant(s.E2E); ok && s.E2ETailN > 0 && p95Shown(s.ClientE2E) {
				out = append(out, fmt.Sprintf("The slowest 5%% of requests by client E2E (n=%d) spend the most time in %s: %s of %s on average.",
					s.E2ETailN, spentIn(d), ms(d.TailMean), ms(s.E2ETailClientE2E)))
			} else if s.ClientE2E.N == 0 {
				out = append(out, "No request has a client E2E time: the user-visible latency cannot be attributed.")
			} else if !p95Shown(s.ClientE2E) {
				out = append(out, fmt.Sprintf("Client E2E has %s: the slowest 5%% are not singled out.", tooSmallP95(s.ClientE2E.N)))
			}
			if d, ok := analyze.Dominant(s.TTFT); ok && s.TTFTTailN > 0 && p95Shown(s.ClientTTFT) {
				out = append(out, fmt.Sprintf("The slowest 5%% by client TTFT (n=%d) spend the most of it in %s: %s of %s on average.",
					s.TTFTTailN, spentIn(d), ms(d.TailMean), ms(s.TTFTTailClientTTFT)))
			}
			continue
		}
		d, ok := analyze.Dominant(s.E2E)
		if !ok || s.E2ETailN == 0 || !p95Shown(s.ClientE2E) {
			continue
		}
		if per == nil {
			per = map[string][]string{}
		}
		if per[d.Name] == nil {
			names = append(names, d.Name)
		}
		per[d.Name] = append(per[d.Name], s.Label)
		slices++
	}
	switch {
	case slices < 2:
	case len(names) == 1:
		out = append(out, fmt.Sprintf("In every slice with a slowest 5%% to attribute (%d), it spends the most time in %s.", slices, names[0]))
	default:
		// The most common component first; the slices of the others named
		// when few.
		for i := 1; i < len(names); i++ {
			for j := i; j > 0 && len(per[names[j]]) > len(per[names[j-1]]); j-- {
				names[j], names[j-1] = names[j-1], names[j]
			}
		}
		parts := make([]string, len(names)-1)
		for i, n := range names[1:] {
			parts[i] = fmt.Sprintf("in %s in %d", n, len(per[n]))
			if len(per[n]) <= 2 {
				parts[i] += " (" + strings.Join(per[n], "; ") + ")"
			}
		}
		out = append(out, fmt.Sprintf("Per slice, the slowest 5%% spend the most time in %s in %d of %d slices, %s.",
			names[0], len(per[names[0]]), slices, strings.Join(parts, ", ")))
	}
	return out
}

// shortWindow renders a window as "from 10:00:37 to 10:01:27 UTC" (the
// date shown once when both ends fall on one day).
func shortWindow(first, last *time.Time) string {
	if first == nil || last == nil {
		return ""
	}
	a, b := first.UTC(), last.UTC()
	if a.Format("2006-01-02") == b.Format("2006-01-02") {
		return fmt.Sprintf("from %s to %s UTC", a.Format("15:04:05"), b.Format("15:04:05"))
	}
	return fmt.Sprintf("from %s to %s UTC", a.Format("2006-01-02 15:04:05"), b.Format("2006-01-02 15:04:05"))
}

// phaseHeadlines compares the burst and cold phases with steady state, by
// the rules of phaseComparisons: only P95s both sides support.
func phaseHeadlines(r *analyze.Result) []string {
	var out []string
	steady, okSteady := phaseByName(r.Phases, "steady")
	for _, name := range []string{"burst", "cold"} {
		p, ok := phaseByName(r.Phases, name)
		what := map[string]string{"burst": "the burst", "cold": "the cold start"}[name]
		if !ok || p.Requests == 0 {
			out = append(out, fmt.Sprintf("No %s phase was detected in the logs.", name))
			continue
		}
		if !okSteady || !p95Shown(p.ClientE2E) || !p95Shown(steady.ClientE2E) {
			out = append(out, fmt.Sprintf("%s detected as %s; n too small for a P95 of client E2E (n=%d in the %s phase, n=%d in steady state) to compare with steady state.",
				plural(p.Requests, "request was", "requests were"), name, p.ClientE2E.N, name, steady.ClientE2E.N))
			continue
		}
		lead := map[string]string{"burst": "During the burst", "cold": "In the cold start"}[name]
		window := shortWindow(p.WindowFirst, p.WindowLast)
		if p.Episodes > 1 {
			// Separate stretches: their first and last starts are no
			// window of one event.
			lead = map[string]string{"burst": "During the bursts", "cold": "In the cold starts"}[name]
			window = fmt.Sprintf("%d separate ones, the first from %s, the last to %s UTC", p.Episodes,
				p.WindowFirst.UTC().Format("2006-01-02 15:04:05"), p.WindowLast.UTC().Format("2006-01-02 15:04:05"))
		}
		out = append(out, fmt.Sprintf("%s (%s, %s), P95 client E2E is %s against %s in steady state.",
			lead, plural(p.Requests, "request", "requests"), window, ms(p.ClientE2E.P95), ms(steady.ClientE2E.P95)))
		dc := sub(p.ClientE2E.P95, steady.ClientE2E.P95)
		if dc <= phaseRise**steady.ClientE2E.P95 {
			out = append(out, fmt.Sprintf("That is within %.0f%% of steady state: %s changed little.", 100*phaseRise, what))
			continue
		}
		if !p95Shown(p.Model) || !p95Shown(steady.Model) {
			out = append(out, fmt.Sprintf("Whether the model is slower is not said: n too small for a P95 of model time (n=%d in the %s phase, n=%d in steady state).", p.Model.N, name, steady.Model.N))
			continue
		}
		dm := sub(p.Model.P95, steady.Model.P95)
		if dm >= modelShare*dc {
			out = append(out, fmt.Sprintf("The model itself is slower: P95 model time rises by %s, P95 client E2E by %s.", ms(&dm), ms(&dc)))
			continue
		}
		best, bestD := "", 0.0
		for _, c := range []struct {
			name string
			a, b analyze.Dist
		}{{"queueing", p.Queue, steady.Queue}, {"network", p.Network, steady.Network}, {"application", p.Application, steady.Application}} {
			if p95Shown(c.a) && p95Shown(c.b) {
				if d := sub(c.a.P95, c.b.P95); d > bestD {
					best, bestD = c.name, d
				}
			}
		}
		if best == "" {
			out = append(out, fmt.Sprintf("The extra time is outside the model: P95 model time rises by only %s.", ms(&dm)))
			continue
		}
		out = append(out, fmt.Sprintf("The extra time is %s, not the model: P95 %s rises by %s, P95 model time by %s.",
			best, strings.TrimSuffix(best, "ing"), ms(&bestD), ms(&dm)))
	}
	return out
}

// slowDecode is how many times its peers' P95 model time per output token
// a replica must take to be called out.
const slowDecode = 1.5

// standOutHeadlines names the slowest slice, the replicas that started cold
// and any replica decoding much slower than the model's other replicas;
// the comparisons use only P95s their samples support.
func standOutHeadlines(r *analyze.Result) []string {
	var out []string
	var all, worst *analyze.Slice
	n := 0
	for i := range r.Slices {
		s := &r.Slices[i]
		if s.All {
			all = s
			continue
		}
		if !p95Shown(s.ClientE2E) {
			continue
		}
		n++
		if worst == nil || *s.ClientE2E.P95 > *worst.ClientE2E.P95 {
			worst = s
		}
	}
	if n > 1 && all != nil && p95Shown(all.ClientE2E) {
		out = append(out, fmt.Sprintf("The slowest slice is %s: P95 client E2E %s, against %s for all requests.", worst.Label, ms(worst.ClientE2E.P95), ms(all.ClientE2E.P95)))
	}
	var first *time.Time
	if len(r.Slices) > 0 {
		first = r.Slices[0].WindowFirst
	}
	for _, rep := range r.Replicas {
		if rep.Cold == 0 {
			continue
		}
		late := ""
		if first != nil && rep.FirstStart != nil {
			late = fmt.Sprintf(" served its first request %.1f s after the service's first;", rep.FirstStart.Sub(*first).Seconds())
		}
		were := "were"
		if rep.Cold == 1 {
			were = "was"
		}
		out = append(out, fmt.Sprintf("Replica %s%s %d of its requests %s cold.", rep.Replica, late, rep.Cold, were))
	}
	for _, rep := range r.Replicas {
		v := rep.ModelPerToken[1]
		if v == nil || rep.ModelPerTokenSmall[1] {
			continue
		}
		peers, most := 0, 0.0
		for _, o := range r.Replicas {
			if o.Replica != rep.Replica && o.Model == rep.Model && o.ModelPerToken[1] != nil && !o.ModelPerTokenSmall[1] {
				peers++
				most = max(most, *o.ModelPerToken[1])
			}
		}
		if peers > 0 && most > 0 && *v >= slowDecode*most {
			out = append(out, fmt.Sprintf("Replica %s decodes slowest: P95 model time per output token %s, against at most %s on the other replicas of %s.", rep.Replica, ms(v), ms(&most), rep.Model))
		}
	}
	return out
}

// dataHeadline sums up the data quality in one line.
func dataHeadline(r *analyze.Result) string {
	c := r.Coverage
	var tiers []string
	for _, t := range []struct {
		name string
		n    int64
	}{{"client", c.Client}, {"gateway", c.Gateway}, {"server", c.Server}} {
		if t.n > 0 {
			tiers = append(tiers, t.name)
		}
	}
	var joined string
	switch len(tiers) {
	case 3:
		joined = fmt.Sprintf("%.1f%% of requests joined on all three tiers", 100*float64(c.AllTiers)/float64(c.Requests))
	case 2:
		both := map[string]int64{"client gateway": c.ClientGateway, "gateway server": c.GatewayServer, "client server": c.ClientServer}[strings.Join(tiers, " ")]
		joined = fmt.Sprintf("only %s logs: %.1f%% of requests joined on both", strings.Join(tiers, " and "), 100*float64(both)/float64(c.Requests))
	default:
		joined = fmt.Sprintf("only %s logs, so nothing is joined", strings.Join(tiers, ""))
	}
	joined = strings.ToUpper(joined[:1]) + joined[1:]
	var more []string
	if r.RejectsTotal > 0 {
		more = append(more, plural(r.RejectsTotal, "line", "lines")+" rejected")
	} else {
		more = append(more, "no line rejected")
	}
	if r.Anomalous > 0 {
		more = append(more, plural(r.Anomalous, "request", "requests")+" anomalous (kept)")
	}
	if s := notReadClause(r.Inputs, headlineFiles); s != "" {
		more = append(more, s)
	}
	return joined + "; " + strings.Join(more, ", ") + " — see Data quality."
}

// headlineFiles is the most files not read to their end a headline names;
// Data quality and Inputs name them all.
const headlineFiles = 5

// notReadClause names the files whose reading stopped before their end,
// each with why, at most max of them (0: all): "2 files not read to their
// end (logs/a.gz: after line 2990: unexpected EOF; logs/b: cannot open:
// permission denied)"; "" when every file was read to its end.
func notReadClause(in analyze.Inputs, max int) string {
	files := in.NotRead()
	if len(files) == 0 {
		return ""
	}
	var named []string
	for i, f := range files {
		if max > 0 && i == max {
			named = append(named, fmt.Sprintf("and %d more, named under Inputs", len(files)-max))
			break
		}
		named = append(named, f.Path+": "+f.Error)
	}
	noun := "files not read to their end"
	if len(files) == 1 {
		noun = "file not read to its end"
	}
	return fmt.Sprintf("%d %s (%s)", len(files), noun, strings.Join(named, "; "))
}

// inputFindings says which files were not read to their end, and which
// gave no rows, each with why.
func inputFindings(in analyze.Inputs) []string {
	var out []string
	if s := notReadClause(in, 0); s != "" {
		out = append(out, capital(s)+": what each held after the error is in no count and no figure.")
	}
	if files := in.OtherErrors(); len(files) > 0 {
		var named []string
		for _, f := range files {
			named = append(named, f.Path+": "+f.Error)
		}
		out = append(out, fmt.Sprintf("%s with an error (%s).", plural(int64(len(files)), "file", "files"), strings.Join(named, "; ")))
	}
	return out
}

// trendHeadlines says, for a report by day or week, what changed in the
// latest period against the one before, by compare's rules (c, from
// compare.Trend): its first findings (at most three), else that nothing
// changed beyond the noise. Nothing without c (fewer than two periods).
func trendHeadlines(c *compare.TrendComparison) []string {
	if c == nil {
		return nil
	}
	if found := CompareFindings(c.Comparison); len(found) > 0 {
		return found[:min(3, len(found))]
	}
	return []string{fmt.Sprintf("Between %s and %s, none of %s changed beyond the noise (judged as compare judges two windows).",
		trendPeriod(c.Baseline), trendPeriod(c.Target), plural(int64(c.Compared), "percentile", "percentiles"))}
}

// trendPeriod names a period label in a sentence: "the week of
// 2026-11-30", or the day as it is.
func trendPeriod(label string) string {
	if strings.HasPrefix(label, "week of") {
		return "the " + label
	}
	return label
}

// OutcomeLabel names an outcome (OutcomeCount, Failure) for a reader:
// a status as it is, "error" as "error, no status".
func OutcomeLabel(o string) string {
	if o == "error" {
		return "error, no status"
	}
	return o
}

// failureText is a slice's error rate with its counts and its failures
// by outcome, e.g. "2.8% failed (554 of 20000: 500 ×190, 429 ×150)".
func failureText(s analyze.Slice) string {
	t := fmt.Sprintf("%.1f%% failed (%d of %d", 100*float64(s.Failed)/float64(max(s.Requests, 1)), s.Failed, s.Requests)
	var parts []string
	for _, f := range s.Failures {
		parts = append(parts, fmt.Sprintf("%s ×%d", OutcomeLabel(f.Outcome), f.Requests))
	}
	if len(parts) > 0 {
		t += ": " + strings.Join(parts, ", ")
	}
	return t + ")"
}

// failureHeadlines give the error rate of all requests, by outcome, and
// which requests the percentiles are over.
func failureHeadlines(r *analyze.Result) []string {
	if len(r.Slices) == 0 || !r.Slices[0].All || r.Slices[0].Requests == 0 {
		return nil
	}
	// Per slice, the summary table's Failed column gives each error rate
	// with its n; the headline is all requests', by status.
	all := r.Slices[0]
	s := failureText(all) + fmt.Sprintf("; latency percentiles are over the %s", plural(all.Succeeded, "successful request", "successful requests"))
	if ab := all.Requests - all.Failed - all.Succeeded; ab > 0 {
		s += fmt.Sprintf(" (%d aborted left out)", ab)
	}
	return []string{s + "."}
}

// abortedFindings says how many requests were aborted and what the server
// spent on them after their clients left.
func abortedFindings(r *analyze.Result) []string {
	a := r.Aborted
	if a.Requests == 0 {
		return nil
	}
	s := fmt.Sprintf("%s aborted: the client left before the response ended (status 499, or the server went on after the tier in front of it had ended).",
		plural(a.Requests, "request was", "requests were"))
	if a.Unsplit > 0 {
		s += fmt.Sprintf(" For %s the server went on generating after the gateway had closed the connection, so network and application time are unknown (–), never negative.",
			plural(a.Unsplit, "of them", "of them"))
	}
	if a.WastedSome > 0 && a.WastedTotal != nil {
		s += fmt.Sprintf(" The server worked %s in all after the client had left (wasted_ms; P50 %s, max %s, n=%d).",
			ms(a.WastedTotal), ms(a.WastedP50), ms(a.WastedMax), a.WithWasted)
	}
	return []string{s}
}

// capital puts s's first letter in upper case.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
