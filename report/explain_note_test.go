package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/explain"
)

// explain says which slice a request is set against (--by), and, for a
// server record matched by time, why its server has no offset.
func TestRenderExplainSliceAndTGI(t *testing.T) {
	t.Parallel()
	ex := &explain.Result{Dir: "out", By: []string{"region"}, Requests: []explain.Request{
		{RequestID: "a", Slice: "region=eu", ServerJoin: "time", ServerHost: "tgi-0"},
		{RequestID: "b", Slice: "region=us", ServerJoin: "id", ServerHost: "vllm-0"},
	}}
	for _, format := range []string{"md", "html"} {
		var b bytes.Buffer
		if err := RenderExplain(&b, format, ex); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		if format == "html" {
			s = html.UnescapeString(s)
		}
		if n := strings.Count(s, "matched to the gateway's by time (TGI and Ollama log no request ID)"); n != 1 {
			t.Errorf("%s: the by-time note appears %d times, want once (request a only)", format, n)
		}
		for _, want := range []string{"Slice: the requests of the same region (region=eu)", "Slice: the requests of the same region (region=us)"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s lacks %q", format, want)
			}
		}
	}
}

// A slice P95 from too few samples is "n too small" and not quoted; bold
// is explain's verdict (explain.AboveP95, which never calls a figure above
// a P95 from too few samples): client E2E 2410 against 2000 from n=300 is.
func TestRenderExplainSmallSlice(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	ex := &explain.Result{Dir: "out", Requests: []explain.Request{{RequestID: "a", Components: []explain.Component{
		{Metric: "client_e2e", Value: p(2410), SliceN: 300, SliceP50: p(900), SliceP95: p(2000), AboveP95: true},
		{Metric: "queue", Value: p(1500), SliceN: 5, SliceP50: p(0), SliceP95: p(300), SliceSmall: [2]bool{false, true}},
	}}}}
	var b bytes.Buffer
	if err := RenderExplain(&b, "md", ex); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{"**2410.0**", "| 1500.0 | 0.0 | n too small | 5 |"} {
		if !strings.Contains(s, want) {
			t.Errorf("explain lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "300.0") || strings.Contains(s, "**1500.0**") {
		t.Errorf("explain quotes or uses the P95 from n=5:\n%s", s)
	}
}

// answerOf renders r alone and returns its first sentence (the line after
// its heading) and the line after that, from the Markdown.
func answerOf(t *testing.T, r explain.Request) (string, string) {
	t.Helper()
	var b bytes.Buffer
	if err := RenderExplain(&b, "md", &explain.Result{Dir: "out", Requests: []explain.Request{r}}); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	// "# infertrace explain", "## ID", the answer, the context.
	if len(lines) < 4 || lines[1] != "## "+r.RequestID {
		t.Fatalf("explain.md does not open with the request:\n%s", b.String())
	}
	return lines[2], lines[3]
}

// The first sentence, by hand, from each kind of answer: the largest part
// with its share and what explains it; a not-split part named as such; an
// unknown part said to be unknown, never given to another component.
func TestRenderExplainAnswer(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	n := func(v int64) *int64 { return &v }
	base := explain.Request{RequestID: "a", Replica: "vllm-3", Region: "eu_west", Gateway: "gw-1", Phase: "burst",
		ClientRecords: 1, GatewayRecords: 1, ServerRecords: 1, QueueDepth: n(80), Concurrency: n(12)}
	for _, tc := range []struct {
		name string
		edit func(*explain.Request)
		want string
	}{
		{"queue", func(r *explain.Request) {
			r.Answer = explain.Answer{
				E2E:  explain.Breakdown{Total: "client_e2e", TotalMs: p(26300), Top: explain.Part{Metric: "queue", Ms: 15500}, Share: 15500.0 / 26300},
				TTFT: &explain.Breakdown{Total: "client_ttft", TotalMs: p(16000), Top: explain.Part{Metric: "ttft_queue", Ms: 15500}, Share: 15500.0 / 16000}}
		}, "**15.50 s of its 26.30 s client E2E (59%) was queueing at the server, behind 80 request(s) waiting on replica vllm-3, during a burst; " +
			"of its 16.00 s client TTFT, 15.50 s (97%) was queueing at the server.**"},
		{"model", func(r *explain.Request) {
			r.Phase = "steady"
			r.Answer = explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", TotalMs: p(1300), Top: explain.Part{Metric: "model", Ms: 1210},
				Share: 1210.0 / 1300, Sub: &explain.Part{Metric: "decode", Ms: 1010}}}
		}, "**1.21 s of its 1.30 s client E2E (93%) was model time, most of it decode (1.01 s), with 12 request(s) in flight on replica vllm-3 (itself included), in steady traffic.**"},
		{"network, label escaped", func(r *explain.Request) {
			r.Phase = ""
			r.Answer = explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", TotalMs: p(400), Top: explain.Part{Metric: "network", Ms: 300}, Share: 0.75}}
		}, `**300.0 ms of its 400.0 ms client E2E (75%) was network (client ↔ gateway), from region eu\_west.**`},
		{"not split", func(r *explain.Request) {
			r.ServerRecords = 0
			r.Answer = explain.Answer{
				E2E:  explain.Breakdown{Total: "client_e2e", TotalMs: p(1000), Top: explain.Part{Metric: "upstream", Ms: 980}, Share: 0.98},
				TTFT: &explain.Breakdown{Total: "client_ttft", TotalMs: p(400), Top: explain.Part{Metric: "ttft_unsplit", Ms: 400}, Share: 1}}
		}, "**980.0 ms of its 1.00 s client E2E (98%) was upstream of the gateway (application + queue + model, not split without a server record), at gateway gw-1, during a burst; " +
			"of its 400.0 ms client TTFT, 400.0 ms (100%) was not split (only the client logged it).**"},
		{"a gap", func(r *explain.Request) {
			r.Aborted = true
			r.Answer = explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", TotalMs: p(26300), Top: explain.Part{Metric: "queue", Ms: 15500},
				Share: 15500.0 / 26300, UnknownMs: 7800, Unknown: []string{"network", "application"}}}
		}, "**15.50 s of its 26.30 s client E2E (59%) was queueing at the server, behind 80 request(s) waiting on replica vllm-3, during a burst; " +
			"7.80 s of it is unknown (network, application: the client left before the response ended).**"},
		{"unknown the largest", func(r *explain.Request) {
			r.GatewayRecords = 0
			r.Answer = explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", TotalMs: p(10000), Top: explain.Part{Metric: "queue", Ms: 2000},
				Share: 0.2, UnknownMs: 7000, Unknown: []string{"network", "application"}}}
		}, "**7.00 s of its 10.00 s client E2E is unknown (network, application: no gateway record); the largest known part, queueing at the server, took 2.00 s.**"},
		{"no total", func(r *explain.Request) {
			r.ClientRecords, r.GatewayRecords = 0, 0
			r.Answer = explain.Answer{E2E: explain.Breakdown{Total: "client_e2e", Top: explain.Part{Metric: "queue", Ms: 2000}, Unknown: []string{"network", "application"}},
				TTFT: &explain.Breakdown{Total: "client_ttft", Top: explain.Part{Metric: "ttft_model", Ms: 90}}}
		}, "**Its end-to-end time is unknown (no client or gateway record with both its times); of what is known, queueing at the server took 2.00 s; " +
			"its client TTFT is unknown (no client first token), of what is known model time took 90.0 ms.**"},
	} {
		r := base
		tc.edit(&r)
		got, next := answerOf(t, r)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
		if !strings.HasPrefix(next, "Context at arrival: ") {
			t.Errorf("%s: the answer is followed by %q, want the context at arrival", tc.name, next)
		}
	}
}

// In HTML the answer opens each request too, its labels escaped, with the
// context line right under it.
func TestRenderExplainAnswerHTML(t *testing.T) {
	t.Parallel()
	v := 300.0
	ex := &explain.Result{Dir: "out", Requests: []explain.Request{{RequestID: "a", Region: "<b>eu</b>", Answer: explain.Answer{
		E2E: explain.Breakdown{Total: "client_e2e", TotalMs: &v, Top: explain.Part{Metric: "network", Ms: 300}, Share: 1}}}}}
	var b bytes.Buffer
	if err := RenderExplain(&b, "html", ex); err != nil {
		t.Fatal(err)
	}
	want := "<h2>a</h2>\n<p class=\"answer\">300.0 ms of its 300.0 ms client E2E (100%) was network (client ↔ gateway), from region &lt;b&gt;eu&lt;/b&gt;.</p>\n<p class=\"note\">Context at arrival: "
	if !strings.Contains(b.String(), want) {
		t.Errorf("explain.html lacks %q:\n%s", want, b.String())
	}
}
