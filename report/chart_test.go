package report

import (
	"slices"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
)

// TestTimeTicks: the time axis's ticks for spans worked out by hand. At
// most eight ticks, at multiples of the step since the Unix epoch, no two
// labels alike; the date in every label where the span exceeds a day,
// only the date for steps of days, and the date on the ticks past the
// first day's midnight.
func TestTimeTicks(t *testing.T) {
	t.Parallel()
	at := func(s string) float64 {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return float64(v.Unix())
	}
	for _, c := range []struct {
		name  string
		first float64
		span  float64
		want  []string
	}{
		// 60 s / 8 = 7.5 s: the 10 s step, with seconds.
		{"a minute", at("2026-11-30T10:00:00Z"), 60, []string{"10:00:00", "10:00:10", "10:00:20", "10:00:30", "10:00:40", "10:00:50", "10:01:00"}},
		// 6 h / 8 = 45 min: the 1 h step (30 min would be 12 ticks).
		{"six hours", at("2026-11-30T00:00:00Z"), 6 * 3600, []string{"00:00", "01:00", "02:00", "03:00", "04:00", "05:00", "06:00"}},
		// 3 h over midnight: the 30 min step; the ticks of the next day
		// carry its date.
		{"over midnight", at("2026-11-30T22:30:00Z"), 3 * 3600,
			[]string{"22:30", "23:00", "23:30", "Dec 1 00:00", "Dec 1 00:30", "Dec 1 01:00", "Dec 1 01:30"}},
		// 30 h / 8 = 3.75 h: the 6 h step, from the next midnight; dated.
		{"thirty hours", at("2026-11-30T20:00:00Z"), 30 * 3600,
			[]string{"Dec 1 00:00", "Dec 1 06:00", "Dec 1 12:00", "Dec 1 18:00", "Dec 2 00:00"}},
		// 12 days / 8 = 1.5 days: the 2-day step; 2026-12-01 is day 20788
		// since the epoch, even, so the first tick.
		{"twelve days", at("2026-11-30T10:00:45Z"), 12 * 86400, []string{"Dec 1", "Dec 3", "Dec 5", "Dec 7", "Dec 9", "Dec 11"}},
		// 100 days / 8 = 12.5 days: the 14-day step, from Thursday
		// 2026-12-03 (day 20790 = 14 × 1485).
		{"a hundred days", at("2026-11-30T10:00:45Z"), 100 * 86400, []string{"Dec 3", "Dec 17", "Dec 31", "Jan 14", "Jan 28", "Feb 11", "Feb 25"}},
		// A year / 8 = 45.6 days: past the listed steps, 28 days × 2; from
		// 2026-02-12, day 20496 = 56 × 366 (2026-01-01 is day 20454).
		{"a year", at("2026-01-01T00:00:00Z"), 365 * 86400, []string{"Feb 12", "Apr 9", "Jun 4", "Jul 30", "Sep 24", "Nov 19"}},
	} {
		var got []string
		for _, tk := range timeTicks(c.first, c.span) {
			got = append(got, tk.label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: ticks %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTSChartPart: a time series of the windows around the burst says on
// its axis that it covers only part of the run.
func TestTSChartPart(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 10, 0, 40, 0, time.UTC)
	ws := []analyze.TimeWindow{{Start: &start, WidthS: 10, Requests: 3}}
	if c := newTSChart(ws); c.AxisTitle != "window start, UTC, from 2026-11-30 (windows of 10 s)" {
		t.Errorf("whole run: axis title %q", c.AxisTitle)
	}
	// A rate under 1/s keeps two significant digits on its axis.
	ws[0].ArrivalsPerS = 0.0125
	if c := newTSChart(ws); c.Panels[0].Max != "0.013/s" {
		t.Errorf("arrivals panel's maximum reads %q, want 0.013/s", c.Panels[0].Max)
	}
	ws[0].AroundBurst = true
	if c := newTSChart(ws); c.AxisTitle != "window start, UTC, from 2026-11-30 (windows of 10 s); only the part of the run around the burst" {
		t.Errorf("around the burst: axis title %q", c.AxisTitle)
	}
}
