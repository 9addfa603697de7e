package analyze

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

func figure(t *testing.T, p TrendPeriod, metric string, q float64) TrendFigure {
	t.Helper()
	for _, f := range p.Figures {
		if f.Metric == metric && f.P == q {
			return f
		}
	}
	t.Fatalf("period %s has no %s P%g", p.Label, metric, q*100)
	return TrendFigure{}
}

// Quantiles of 400 values 100..499 by quantile_cont are 100 + 399p: P50
// 299.5, P95 479.05. Tuesday's P95 sits at position 379.05, among the
// slow 40 (1100+i): 1479.05, +999 against Monday's 480.05. Both days'
// standard error at P95 is sqrt(.95 .05/400) (Q(.97)-Q(.93))/.04 =
// 0.0108972 x 399 = 4.348 ms, so the change's 95% half-width is 1.96
// sqrt(2) 4.348 = 12.05 ms: Monday's +1 ms is noise, Tuesday's +999 ms is
// not. P99 needs 1000 samples: too few.
func TestTrendByDay(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Trend(), analyzetest.DefaultOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{Period: PeriodDay})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trend
	if tr == nil {
		t.Fatal("no trend with Period day")
	}
	if len(tr.Periods) != 3 || tr.Periods[0].Format("2006-01-02") != "2026-03-01" {
		t.Fatalf("periods = %v, want the three days from 2026-03-01", tr.Periods)
	}
	if len(tr.Slices) != 2 || !tr.Slices[0].All || tr.Slices[1].Label != "model=m, use_case=chat" {
		t.Fatalf("slices = %+v, want all requests and model=m, use_case=chat", tr.Slices)
	}
	all := tr.Slices[0]
	for i, want := range []struct {
		p50, p95, d95 float64
		sig           bool
	}{{299.5, 479.05, 0, false}, {300.5, 480.05, 1, false}, {299.5, 1479.05, 999, true}} {
		p := all.Periods[i]
		if p.Requests != 400 || p.WindowFirst == nil || p.WindowFirst.Format("15:04:05") != "12:00:00" {
			t.Errorf("%s: requests %d window %v, want 400 from 12:00:00", p.Label, p.Requests, p.WindowFirst)
		}
		f50, f95 := figure(t, p, "client_e2e", 0.5), figure(t, p, "client_e2e", 0.95)
		if f95.N != 400 || !nearTol(f50.Value, want.p50, 1e-6) || !nearTol(f95.Value, want.p95, 1e-6) {
			t.Errorf("%s: P50 %s P95 %s n %d, want %v %v 400", p.Label, fmtp(f50.Value), fmtp(f95.Value), f95.N, want.p50, want.p95)
		}
		if i == 0 {
			if f95.Prev != nil || f95.Delta != nil || !p.First() {
				t.Errorf("%s: the first day has a previous one: %+v", p.Label, f95)
			}
			continue
		}
		if !nearTol(f95.Delta, want.d95, 1e-6) || f95.Significant != want.sig || f95.Lo == nil || f95.Hi == nil ||
			math.Abs((*f95.Hi-*f95.Lo)/2-1.959964*math.Sqrt2*0.0108972*399) > 0.01 {
			t.Errorf("%s: P95 change %s [%s, %s] significant %v, want %+v ± 12.05", p.Label, fmtp(f95.Delta), fmtp(f95.Lo), fmtp(f95.Hi), f95.Significant, want.d95)
		}
		if f99 := figure(t, p, "client_e2e", 0.99); !f99.TooFew || !f99.ChangeTooFew || f99.Lo != nil || f99.Significant {
			t.Errorf("%s: P99 of 400 = %+v, want too few", p.Label, f99)
		}
		if e := figure(t, p, "error_rate", 0); e.K == nil || *e.K != 0 || !nearTol(e.Value, 0, 1e-12) || e.Significant || e.Lo == nil {
			t.Errorf("%s: error rate %+v, want 0 of 400, no significant change", p.Label, e)
		}
		if q := figure(t, p, "queue", 0.95); q.N != 0 || q.Value != nil || q.Lo != nil {
			t.Errorf("%s: queue without servers = %+v, want n 0 and NULL", p.Label, q)
		}
	}
	// Monday against Sunday: nothing larger than the noise.
	if ch, n := all.Periods[1].Changed(); len(ch) != 0 || n == 0 {
		t.Errorf("Monday changed %v of %d, want none of several", ch, n)
	}
	if ch, _ := all.Periods[2].Changed(); len(ch) != 1 || (ch[0].Name != "client E2E" || ch[0].P != 0.95) {
		t.Errorf("Tuesday changed %v, want only P95 client E2E", ch)
	}
	first := tr.Changes[0]
	if !first.All || (first.Name != "client E2E" || first.P != 0.95) || first.Period != "2026-03-03" || !first.Significant {
		t.Fatalf("largest change = %+v, want P95 client E2E of all requests on 2026-03-03", first)
	}
	want := "P95 client E2E of all requests rose 999.0 ms on 2026-03-03 against 2026-03-02 (480.0 ms → 1.48 s, n=400 vs 400; 95% interval +986.9 ms to +1.01 s): larger than the noise (worse)."
	if got := ChangeText(first); got != want {
		t.Errorf("largest change says\n%s\nwant\n%s", got, want)
	}
	for _, c := range tr.Changes[2:] {
		if c.Significant {
			t.Errorf("a third significant change: %s", ChangeText(c))
		}
	}
	noise := false
	for _, c := range tr.Changes {
		if c.Period == "2026-03-02" && c.Name == "client E2E" && c.P == 0.95 && c.All {
			noise = !c.Significant && strings.HasSuffix(ChangeText(c), "within the noise.")
		}
	}
	if !noise {
		t.Error("Monday's P95 change of +1 ms is not listed as noise")
	}
}

// Weekly: Sunday 2026-03-01 is in the ISO week of Monday 2026-02-23,
// Monday and Tuesday in the next. That week's 800 client E2E values hold
// 760 at most 500 ms (Monday's 101..500, Tuesday's 100..459) below
// Tuesday's 1460..1499: P95 at position 0.95 x 799 = 759.05 is 500 + 0.05
// (1460 - 500) = 548.
func TestTrendByWeek(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Trend(), analyzetest.DefaultOffsets)
	res, err := summarize1(context.Background(), dir, SummaryOptions{Period: PeriodWeek, By: []string{"model"}})
	if err != nil {
		t.Fatal(err)
	}
	all := res.Trend.Slices[0]
	if len(all.Periods) != 2 || all.Periods[0].Label != "week of 2026-02-23" || all.Periods[1].Label != "week of 2026-03-02" {
		t.Fatalf("weeks = %+v", all.Periods)
	}
	if !all.Periods[0].Start.Equal(time.Date(2026, 2, 23, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("first week starts %v, want Monday 2026-02-23 00:00 UTC", all.Periods[0].Start)
	}
	w1, w2 := figure(t, all.Periods[0], "client_e2e", 0.95), figure(t, all.Periods[1], "client_e2e", 0.95)
	if all.Periods[0].Requests != 400 || all.Periods[1].Requests != 800 || !nearTol(w1.Value, 479.05, 1e-6) || !nearTol(w2.Value, 548, 1e-6) || !nearTol(w2.Delta, 68.95, 1e-6) {
		t.Errorf("weeks: %d %d requests, P95 %s → %s (%s), want 400, 800, 479.05 → 548 (+68.95)",
			all.Periods[0].Requests, all.Periods[1].Requests, fmtp(w1.Value), fmtp(w2.Value), fmtp(w2.Delta))
	}
	if res.Trend.Slices[1].Label != "model=m" {
		t.Errorf("slice %q, want model=m", res.Trend.Slices[1].Label)
	}
}

func TestTrendRejectsUnknownPeriod(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, analyzetest.Trend(), analyzetest.DefaultOffsets)
	if _, err := summarize1(context.Background(), dir, SummaryOptions{Period: "month"}); err == nil || !strings.Contains(err.Error(), "day or week") {
		t.Errorf("period month: err = %v, want one naming day or week", err)
	}
}
