package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// trendResult is the three-day fixture (analyzetest.Trend: Tuesday slower
// at P95, Monday a 1 ms shift) summarized with a trend by day (once per
// test binary; each caller gets its own copy).
func trendResult(t *testing.T) *analyze.Result {
	t.Helper()
	return sharedResult(t, "trend", func() (*analyze.Result, error) {
		dir := sharedDir(t, "trend", func(dir string) error { return analyzeFixture(dir, analyzetest.Trend()) })
		return analyze.Summarize(context.Background(), dir, analyze.SummaryOptions{Period: analyze.PeriodDay})
	})
}

// The trend section: the slower Tuesday's P95 rise listed first, beyond
// the noise and bold in its row; Monday's row says noise; the section is
// after the time series and linked from the contents, and the first
// screen (Summary) is unchanged in its place.
func TestRenderTrend(t *testing.T) {
	t.Parallel()
	res := trendResult(t)
	var md, html bytes.Buffer
	if err := Render(&md, "md", res, nil); err != nil {
		t.Fatal(err)
	}
	if err := Render(&html, "html", res, nil); err != nil {
		t.Fatal(err)
	}
	m := md.String()
	sec, ok := strings.CutPrefix(m[strings.Index(m, "\n## Trend by day\n")+1:], "## Trend by day\n")
	if !ok || !strings.Contains(m, "[Trend by day](#trend-by-day)") {
		t.Fatalf("no Trend by day section linked from the contents:\n%s", m)
	}
	if strings.Index(m, "## Summary") > strings.Index(m, "## Trend by day") || strings.Index(m, "## Time series") > strings.Index(m, "## Trend by day") ||
		strings.Index(m, "## Attribution by slice") < strings.Index(m, "## Trend by day") {
		t.Error("Trend by day is not between Time series and Attribution by slice")
	}
	sec = sec[:strings.Index(sec, "\n## ")]
	first := "- P95 client E2E of all requests rose 999.0 ms on 2026-03-03 against 2026-03-02"
	if i := strings.Index(sec, "\n- "); i < 0 || !strings.HasPrefix(sec[i+1:], first) || !strings.Contains(sec[i+1:strings.Index(sec[i+1:], "\n")+i+1], "larger than the noise (worse)") {
		t.Errorf("first listed change is not Tuesday's P95 rise beyond the noise:\n%s", sec)
	}
	var mon, tue string
	for _, l := range strings.Split(sec, "\n") {
		switch {
		case strings.HasPrefix(l, "| 2026-03-02 |") && mon == "":
			mon = l
		case strings.HasPrefix(l, "| 2026-03-03 |") && tue == "":
			tue = l
		}
	}
	if !strings.Contains(mon, "| noise (") || strings.Contains(mon, "**") {
		t.Errorf("Monday's row of all requests does not say noise:\n%s", mon)
	}
	if !strings.HasSuffix(tue, "| P95 client E2E +999.0 ms |") || !strings.Contains(tue, "| **1479.") || !strings.Contains(tue, "| 400 |") {
		t.Errorf("Tuesday's row does not show its P95 rise in bold with n:\n%s", tue)
	}
	if !strings.Contains(sec, "| 2026-03-01 | 2026-03-01 12:00:00") || !strings.Contains(sec, "– (first)") {
		t.Errorf("Sunday's row lacks its window or first mark:\n%s", sec)
	}
	h := html.String()
	for _, s := range []string{`<a href="#trend">Trend by day</a>`, `<h2 id="trend">Trend by day</h2>`, `<b>1479.`, `<details><summary><h3>model=m, use_case=chat</h3></summary>`} {
		if !strings.Contains(h, s) {
			t.Errorf("html lacks %q", s)
		}
	}
}
