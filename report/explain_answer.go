package report

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/explain"
)

// The first sentence of each explained request: what took its time, from
// explain.Answer. A missing tier's time is said to be unknown, never put
// on another component.

var answerPart = map[string]string{
	"network":             "network (client ↔ gateway)",
	"application":         "application (the gateway and its hop to the server)",
	"queue":               "queueing at the server",
	"model":               "model time",
	"upstream":            "upstream of the gateway (application + queue + model, not split without a server record)",
	"network_application": "network + application (not split without a gateway record)",
	"unsplit":             "not split (only the client logged it)",
}

var answerTotal = map[string]string{
	"client_e2e": "client E2E", "gateway_e2e": "gateway E2E (no client record: the time before the gateway is not in the logs)",
	"client_ttft": "client TTFT",
}

var answerPhase = map[string]string{"burst": "during a burst", "cold": "in a cold start", "steady": "in steady traffic"}

// partName is a part's name in the sentence; TTFT parts by their E2E name.
func partName(m string) string {
	m = strings.TrimPrefix(m, "ttft_")
	if s, ok := answerPart[m]; ok {
		return s
	}
	return m
}

// shareText is " (59%)", or nothing when the share is not one (the server
// outlived a client that left).
func shareText(s float64) string {
	if s <= 0 || s > 1 {
		return ""
	}
	return fmt.Sprintf(" (%.0f%%)", 100*s)
}

// unknownWhy says why a total's parts are unknown: the tiers without a
// record, else that the client left, else that their times are missing.
func unknownWhy(r explain.Request) string {
	var miss []string
	for _, t := range []struct {
		n    int64
		name string
	}{{r.ClientRecords, "client"}, {r.GatewayRecords, "gateway"}, {r.ServerRecords, "server"}} {
		if t.n == 0 {
			miss = append(miss, t.name)
		}
	}
	switch {
	case len(miss) > 0:
		return "no " + strings.Join(miss, " or ") + " record"
	case r.Aborted:
		return "the client left before the response ended"
	}
	return "their times are missing"
}

func unknownNames(b explain.Breakdown) string {
	var n []string
	for _, m := range b.Unknown {
		n = append(n, strings.TrimPrefix(m, "ttft_"))
	}
	if len(n) == 0 {
		return "not in any component"
	}
	return strings.Join(n, ", ")
}

// answerContext is what explains the top part, from the request's context
// at arrival: the queue ahead of it, the requests in flight, its phase.
func answerContext(r explain.Request, top string, esc func(string) string) string {
	var s string
	switch top {
	case "queue":
		if r.QueueDepth != nil {
			s = fmt.Sprintf(", behind %d request(s) waiting on replica %s", *r.QueueDepth, esc(r.Replica))
		}
	case "model":
		if r.Concurrency != nil {
			s = fmt.Sprintf(", with %d request(s) in flight on replica %s (itself included)", *r.Concurrency, esc(r.Replica))
		}
	case "network":
		if r.Region != "" {
			s = ", from region " + esc(r.Region)
		}
	case "application", "upstream":
		if r.Gateway != "" {
			s = ", at gateway " + esc(r.Gateway)
		}
	}
	if p, ok := answerPhase[r.Phase]; ok && top != "" {
		s += ", " + p
	}
	return s
}

// explainAnswer is the sentence that answers "why was it slow?" for r;
// esc escapes the log's labels for the page's format.
func explainAnswer(r explain.Request, esc func(string) string) string {
	a := r.Answer
	e := a.E2E
	var s string
	switch {
	case e.TotalMs == nil && e.Top.Metric != "":
		s = fmt.Sprintf("Its end-to-end time is unknown (no client or gateway record with both its times); of what is known, %s took %s",
			partName(e.Top.Metric), fmtAbsMs(e.Top.Ms))
	case e.TotalMs == nil:
		s = "Its end-to-end time is unknown (no client or gateway record with both its times)"
	case e.UnknownLargest():
		s = fmt.Sprintf("%s of its %s %s is unknown (%s: %s)", fmtAbsMs(e.UnknownMs), fmtAbsMs(*e.TotalMs), answerTotal[e.Total],
			unknownNames(e), unknownWhy(r))
		if e.Top.Metric != "" {
			s += fmt.Sprintf("; the largest known part, %s, took %s", partName(e.Top.Metric), fmtAbsMs(e.Top.Ms))
		}
	case e.Top.Metric == "":
		s = fmt.Sprintf("Its %s took %s, none of it in a known component", answerTotal[e.Total], fmtAbsMs(*e.TotalMs))
	default:
		s = fmt.Sprintf("%s of its %s %s%s was %s", fmtAbsMs(e.Top.Ms), fmtAbsMs(*e.TotalMs), answerTotal[e.Total], shareText(e.Share),
			partName(e.Top.Metric))
		if e.Sub != nil {
			s += fmt.Sprintf(", most of it %s (%s)", e.Sub.Metric, fmtAbsMs(e.Sub.Ms))
		}
		s += answerContext(r, e.Top.Metric, esc)
		if e.Gap() {
			s += fmt.Sprintf("; %s of it is unknown (%s: %s)", fmtAbsMs(e.UnknownMs), unknownNames(e), unknownWhy(r))
		}
	}
	if t := a.TTFT; t != nil {
		switch {
		case t.TotalMs == nil && t.Top.Metric != "":
			s += fmt.Sprintf("; its client TTFT is unknown (no client first token), of what is known %s took %s", partName(t.Top.Metric), fmtAbsMs(t.Top.Ms))
		case t.TotalMs == nil:
			s += "; its client TTFT is unknown (no client first token)"
		case t.UnknownLargest():
			s += fmt.Sprintf("; %s of its %s client TTFT is unknown (%s: %s)", fmtAbsMs(t.UnknownMs), fmtAbsMs(*t.TotalMs), unknownNames(*t), unknownWhy(r))
		case t.Top.Metric != "":
			s += fmt.Sprintf("; of its %s client TTFT, %s%s was %s", fmtAbsMs(*t.TotalMs), fmtAbsMs(t.Top.Ms), shareText(t.Share), partName(t.Top.Metric))
			if t.Gap() {
				s += fmt.Sprintf(" and %s unknown (%s: %s)", fmtAbsMs(t.UnknownMs), unknownNames(*t), unknownWhy(r))
			}
		}
	}
	return s + "."
}
