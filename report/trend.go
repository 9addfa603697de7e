package report

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/analyze"
)

// trendTopChanges is how many changes the trend section lists before its
// tables.
const trendTopChanges = 10

// trendView is the "Trend by day/week" section (report --period).
type trendView struct {
	Unit    string // "day" or "week"
	Title   string // "Trend by day"
	Periods int
	First   string // the first and last period's labels
	Last    string
	Changes []string // the largest changes, as sentences
	More    int      // changes not listed
	Slices  []trendSliceView
}

type trendSliceView struct {
	All   bool
	Label string
	Rows  []trendRow
}

// trendRow is one period of one slice, its cells formatted.
type trendRow struct {
	Label, Window string
	Requests      int64
	Cells         []trendCell // in analyze.TrendFigures order
	N             []int64     // n of client E2E, client TTFT, per-user tokens/s
	CompN         string      // n of network, application, queue, model: "400/400/400/400"
	Change        string      // the changes beyond the noise, "noise", "too few to tell", "–"
}

// trendCell is one figure of one period.
type trendCell struct {
	Text    string // "479.1", "0.00% (0/400)"
	Changed bool   // its change from the previous period is beyond the noise
	Title   string // "n=400; +999.0 ms against 2026-03-02 (95% interval …)"
}

func newTrendView(t *analyze.Trend) *trendView {
	if t == nil {
		return nil
	}
	v := &trendView{Unit: t.Unit, Title: "Trend by " + t.Unit, Periods: len(t.Periods)}
	if len(t.Periods) > 0 {
		v.First = analyze.PeriodLabel(t.Unit, t.Periods[0])
		v.Last = analyze.PeriodLabel(t.Unit, t.Periods[len(t.Periods)-1])
	}
	for i, c := range t.Changes {
		if i == trendTopChanges {
			v.More = len(t.Changes) - i
			break
		}
		v.Changes = append(v.Changes, TrendChangeText(c))
	}
	for _, s := range t.Slices {
		sv := trendSliceView{All: s.All, Label: s.Label}
		for _, p := range s.Periods {
			r := trendRow{Label: p.Label, Window: analyze.FormatWindow(p.WindowFirst, p.WindowLast), Requests: p.Requests}
			var compN []string
			for _, f := range p.Figures {
				r.Cells = append(r.Cells, trendCellOf(f))
				switch f.Metric {
				case "client_e2e", "client_ttft", "tps_user":
					if f.Metric != "client_e2e" || f.P == 0.5 {
						r.N = append(r.N, f.N)
					}
				case "network", "application", "queue", "model":
					compN = append(compN, fmt.Sprint(f.N))
				}
			}
			r.CompN = strings.Join(compN, "/")
			changed, compared := p.Changed()
			switch {
			case p.First():
				r.Change = "– (first)"
			case len(changed) > 0:
				var parts []string
				for _, f := range changed {
					parts = append(parts, trendShort(f))
				}
				r.Change = strings.Join(parts, "; ")
			case compared > 0:
				r.Change = fmt.Sprintf("noise (%d figures compared, none beyond it)", compared)
				if compared == 1 {
					r.Change = "noise (1 figure compared, not beyond it)"
				}
			default:
				r.Change = "too few samples to tell"
			}
			sv.Rows = append(sv.Rows, r)
		}
		v.Slices = append(v.Slices, sv)
	}
	return v
}

func trendCellOf(f analyze.TrendFigure) trendCell {
	c := trendCell{Changed: f.Significant}
	switch {
	case f.Value == nil:
		c.Text = "–"
	case f.Unit == "share":
		c.Text = fmt.Sprintf("%.2f%%", 100**f.Value)
		if f.K != nil {
			c.Text += fmt.Sprintf(" (%d/%d)", *f.K, f.N)
		}
	default:
		c.Text = fmt.Sprintf("%.1f", *f.Value)
	}
	c.Title = fmt.Sprintf("%s, n=%d", trendTitle(f), f.N)
	if f.TooFew && f.Value != nil {
		c.Title += " (too few samples for its interval)"
	}
	if f.Prev != nil && f.Delta != nil {
		c.Title += fmt.Sprintf("; %s against %s", trendSigned(f, f.Delta), f.PrevLabel)
		if f.Lo != nil && f.Hi != nil {
			c.Title += fmt.Sprintf(" (95%% interval %s to %s", trendSigned(f, f.Lo), trendSigned(f, f.Hi))
			if f.Significant {
				c.Title += ", beyond the noise)"
			} else {
				c.Title += ", noise)"
			}
		}
	}
	return c
}
