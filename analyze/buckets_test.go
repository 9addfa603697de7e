package analyze

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/contract"
)

// Requests land in the prompt and output buckets by their token counts,
// each edge belonging to the bucket above it; no count, no bucket.
func TestTokenBuckets(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	prompts := []int{0, 511, 512, 2047, 2048, 8191, 8192, 32767, 32768, 100000, -1}
	for i, p := range prompts {
		c := analyzetest.Client{
			ID: fmt.Sprintf("b%02d", i), Start: analyzetest.At(int64(i) * 1000), End: analyzetest.At(int64(i)*1000 + 10),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u",
			Output: analyzetest.Int(600), Line: i + 1,
		}
		if p >= 0 {
			c.PromptTokens = analyzetest.Int(p)
		}
		f.Clients = append(f.Clients, c)
	}
	got := func(res *Result) string {
		var labels []string
		for _, s := range res.Slices[1:] {
			labels = append(labels, fmt.Sprintf("%s:%d", strings.Join(s.Values, ","), s.Requests))
		}
		sort.Strings(labels)
		return strings.Join(labels, " ")
	}
	res := summarize(t, f, "prompt_bucket", "output_bucket")
	if want := "(none),512-2k:1 2k-8k,512-2k:2 512-2k,512-2k:2 8k-32k,512-2k:2 <512,512-2k:2 >=32k,512-2k:2"; got(res) != want {
		t.Errorf("default buckets: %s\nwant %s", got(res), want)
	}

	// Other edges: 1000 and 4k.
	dir, _, _ := runFixture(t, f, analyzetest.DefaultOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{By: []string{"prompt_bucket", "output_bucket"}, TokenEdges: []int64{1000, 4096}})
	if err != nil {
		t.Fatal(err)
	}
	if want := "(none),<1000:1 1000-4k,<1000:2 <1000,<1000:3 >=4k,<1000:5"; got(res) != want {
		t.Errorf("edges 1000,4k: %s\nwant %s", got(res), want)
	}
}

func TestParseTokenEdges(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []int64
		err  bool
	}{
		{"512,2k,8k,32k", []int64{512, 2048, 8192, 32768}, false},
		{"100, 1000", []int64{100, 1000}, false},
		{"2k,512", nil, true},
		{"0,10", nil, true},
		{"x", nil, true},
		{"", nil, true},
	} {
		got, err := ParseTokenEdges(c.in)
		if (err != nil) != c.err || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ParseTokenEdges(%q) = %v, %v; want %v, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

// A contract can select and slice by token bucket.
func TestTokenBucketContract(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for i, p := range []int{100, 3000, 4000, 9000} {
		f.Clients = append(f.Clients, analyzetest.Client{
			ID: fmt.Sprintf("k%d", i), Start: analyzetest.At(int64(i) * 1000), End: analyzetest.At(int64(i)*1000 + 10*int64(i+1)),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(false), Model: "m", UseCase: "u",
			PromptTokens: analyzetest.Int(p), Output: analyzetest.Int(10), Line: i + 1,
		})
	}
	c, err := contract.Parse("c.toml", []byte(`
[[use_case]]
name = "long"
match = { prompt_bucket = "2k-8k" }
by = ["prompt_bucket"]
  [[use_case.constraint]]
  metric = "client_e2e_ms"
  percentile = 50
  op = "<="
  target = 30
`), SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	dir, _, _ := runFixture(t, f, analyzetest.DefaultOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{Contract: c})
	if err != nil {
		t.Fatal(err)
	}
	// k1 and k2 (3000 and 4000 tokens): E2E 20 and 30 ms, P50 25.
	cs := res.Contract.Cases
	if len(cs) != 2 || cs[0].Requests != 2 || cs[1].Slice != "prompt_bucket=2k-8k" || !near(cs[0].Constraints[0].Value, 25) {
		t.Fatalf("cases = %+v", cs)
	}
}
