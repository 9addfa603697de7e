package analyze

import (
	"strings"
	"testing"
	"time"
)

func TestFormatWindow(t *testing.T) {
	a := time.Date(2026, 3, 1, 23, 59, 59, 999_000_000, time.UTC)
	b := a.Add(1500 * time.Millisecond)
	if got, want := FormatWindow(&a, &a), "2026-03-01 23:59:59.999 – 23:59:59.999 UTC"; got != want {
		t.Errorf("same day: %q, want %q", got, want)
	}
	if got, want := FormatWindow(&a, &b), "2026-03-01 23:59:59.999 – 2026-03-02 00:00:01.499 UTC"; got != want {
		t.Errorf("across days: %q, want %q", got, want)
	}
	if got := FormatWindow(nil, &b); got != "–" {
		t.Errorf("empty window: %q", got)
	}
}

func TestPlural(t *testing.T) {
	if got := plural(1, "request is", "requests are"); got != "1 request is" {
		t.Error(got)
	}
	if got := plural(3, "request is", "requests are"); got != "3 requests are" {
		t.Error(got)
	}
}

func TestPhaseComparisons(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	d := func(n int64, p95 float64) Dist { return Dist{N: n, P50: p(p95 / 2), P95: p(p95)} }
	steady := Phase{Name: "steady", Requests: 100, ClientE2E: d(100, 1000), Model: d(100, 800), Queue: d(100, 10), Network: d(100, 100), Application: d(100, 3)}
	burst := Phase{Name: "burst", Requests: 50, ClientE2E: d(50, 5000), Model: d(50, 1200), Queue: d(50, 3700), Network: d(50, 110), Application: d(50, 4)}
	cold := Phase{Name: "cold", Requests: 10, ClientE2E: d(10, 3000), Model: d(10, 2700), Queue: d(10, 20), Network: d(10, 100), Application: d(10, 3)}
	got := phaseComparisons(&Result{Phases: []Phase{cold, burst, steady}})
	if len(got) != 2 {
		t.Fatalf("got %d findings, want 2: %q", len(got), got)
	}
	// Burst: client +4000 ms, model +400 ms (10%), queue +3690 ms.
	for _, want := range []string{"In the burst phase (n=50", "+4000.0 ms", "model time stays comparatively flat", "(n=100) to 1200.0 ms (n=50), +400.0 ms or 10% of the rise", "mostly in queueing"} {
		if !strings.Contains(got[0], want) {
			t.Errorf("burst finding lacks %q:\n%s", want, got[0])
		}
	}
	// Cold: client +2000 ms, model +1900 ms: the model is the cause.
	if !strings.Contains(got[1], "In the cold phase") || !strings.Contains(got[1], "the model itself is slower") {
		t.Errorf("cold finding: %s", got[1])
	}
	// A phase whose client P95 rises by less than 20% gets no comparison.
	burst.ClientE2E = d(50, 1100)
	if got := phaseComparisons(&Result{Phases: []Phase{burst, steady}}); len(got) != 0 {
		t.Errorf("small rise gave %q", got)
	}
}
