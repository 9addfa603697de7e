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

// A slice P95 from too few samples is "n too small" and nothing is called
// above it: queue 1500 ms against a P95 of 300 ms from n=5 is not hot,
// client E2E 2410 against 2000 from n=300 is.
func TestRenderExplainSmallSlice(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	ex := &explain.Result{Dir: "out", Requests: []explain.Request{{RequestID: "a", Components: []explain.Component{
		{Metric: "client_e2e", Value: p(2410), SliceN: 300, SliceP50: p(900), SliceP95: p(2000)},
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
