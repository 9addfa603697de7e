package report

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// explain says which slice a request is set against (--by), and, for a
// server record matched by time, why its server has no offset.
func TestRenderExplainSliceAndTGI(t *testing.T) {
	ex := &analyze.Explanation{Dir: "out", By: []string{"region"}, Requests: []analyze.ExplainedRequest{
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
