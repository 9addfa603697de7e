package explain

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
)

func explainComponent(t *testing.T, r Request, metric string) Component {
	t.Helper()
	for _, c := range r.Components {
		if c.Metric == metric {
			return c
		}
	}
	t.Fatalf("%s has no %s", r.RequestID, metric)
	return Component{}
}

// explain sets a request against the requests of its slice of --by. In the
// standard fixture r1 is m1, chat, region eu. Client E2E of m1 chat: r1
// 1300, r2 2600, r4 1000, r6 800 ms: P50 1150 of 4. Of region eu: r1
// 1300, r3 500, r4 1000, r6 800: P50 900 of 4.
func TestExplainBy(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	for _, tc := range []struct {
		by    []string
		slice string
		p50   float64
	}{{nil, "model=m1, use_case=chat", 1150}, {[]string{"region"}, "region=eu", 900}} {
		ex, err := Run(context.Background(), dir, Options{IDs: []string{"r1"}, By: tc.by})
		if err != nil {
			t.Fatal(err)
		}
		r := ex.Requests[0]
		c := explainComponent(t, r, "client_e2e")
		if r.Slice != tc.slice || c.SliceN != 4 || !nearTol(c.SliceP50, tc.p50, 1e-9) || !nearTol(c.Value, 1300, 1e-9) {
			t.Errorf("by %v: slice %q, client E2E %s against P50 %s of %d; want %q, 1300 against %v of 4",
				tc.by, r.Slice, fmtp(c.Value), fmtp(c.SliceP50), c.SliceN, tc.slice, tc.p50)
		}
	}
	if _, err := Run(context.Background(), dir, Options{IDs: []string{"r1"}, By: []string{"colour"}}); err == nil {
		t.Error("explain --by colour: no error")
	}
}

// A TGI record matched by time (TestTGIMatchFollowsDrift's fixture): its
// request says so, and its server host gets no offset, while its
// components still come from the TGI durations.
func TestExplainTGIByTime(t *testing.T) {
	t.Parallel()
	var f analyzetest.Fixture
	for k := int64(0); k < 10; k++ {
		start := k * 400000
		f.Gateways = append(f.Gateways, analyzetest.GatewayRow(fmt.Sprintf("d%d", k), start, start+1000, int(k+1)))
		f.Servers = append(f.Servers, analyzetest.TGIRow(start+3-k*8, 995, 5, 100, 880, int(k+1)))
	}
	dir, _, _ := runFixture(t, f, analyzetest.ServerOffsets)
	ex, err := Run(context.Background(), dir, Options{IDs: []string{"d3"}})
	if err != nil {
		t.Fatal(err)
	}
	r := ex.Requests[0]
	if r.ServerJoin != "time" || r.ServerOffset.Ms != nil {
		t.Errorf("d3: server_join %q, server offset %s; want time and none", r.ServerJoin, fmtp(r.ServerOffset.Ms))
	}
	if q := explainComponent(t, r, "queue"); !nearTol(q.Value, 100, 1e-9) {
		t.Errorf("d3 queue = %s, want TGI's logged 100 ms", fmtp(q.Value))
	}
}

// A slice's P95 from too few samples is flagged (pct_too_small): r1's
// slice m1/chat has 4 client E2E times, enough for a P50, not a P95.
func TestExplainSliceSmall(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	ex, err := Run(context.Background(), dir, Options{IDs: []string{"r1"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := explainComponent(t, ex.Requests[0], "client_e2e"); c.SliceN != 4 || c.SliceSmall != [2]bool{false, true} {
		t.Errorf("client E2E of m1/chat: n=%d, small %v; want n=4, [false true]", c.SliceN, c.SliceSmall)
	}
}

// runFixture writes the fixture f into a temporary store and analyzes it.
func runFixture(t *testing.T, f analyzetest.Fixture, off analyzetest.Offsets) (string, *analyze.RunStats, any) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, off); err != nil {
		t.Fatal(err)
	}
	st, err := analyze.Run(ctx, dir)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return dir, st, nil
}

func nearTol(p *float64, want, tol float64) bool {
	return p != nil && math.Abs(*p-want) < tol
}

func fmtp(p *float64) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}
