package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
)

// Period units of report --period (--weekly is week).
const (
	PeriodDay  = "day"
	PeriodWeek = "week"
)

// PeriodUnits lists the units --period accepts.
var PeriodUnits = []string{PeriodDay, PeriodWeek}

// checkPeriod fails unless unit is one of PeriodUnits. Summarize checks
// it before it reads anything, so that a wrong unit costs no summary.
func checkPeriod(unit string) error {
	if unit != PeriodDay && unit != PeriodWeek {
		return fmt.Errorf("period %q: want %s", unit, strings.Join(PeriodUnits, " or "))
	}
	return nil
}

// Trend is the headline figures of each slice per period (day or week)
// present in the data, and their changes from one period to the next
// (queries/periods.sql).
type Trend struct {
	Unit    string      // PeriodDay or PeriodWeek
	By      []string    // the slice columns
	Periods []time.Time // the periods present, oldest first
	Slices  []TrendSlice
	// Changes holds every change between consecutive periods of a slice
	// that both periods have enough samples to judge, larger than the
	// noise first, then by impact (largestFirst); a slice holding
	// all requests of both periods is left out (its changes are those of
	// all requests).
	Changes []TrendChange
}

// TrendSlice is one slice's figures per period, oldest first.
type TrendSlice struct {
	All     bool
	Label   string // "all requests" or "model=m, use_case=u"
	Periods []TrendPeriod
}

// TrendPeriod is one period of one slice.
type TrendPeriod struct {
	Start                   time.Time // the period's first instant (UTC)
	Label                   string    // "2026-03-02" or "week of 2026-03-02"
	Requests                int64
	WindowFirst, WindowLast *time.Time
	Figures                 []TrendFigure // in TrendFigures order
}

// TrendFigure is one figure of one period, and its change from the
// slice's previous period present (Prev nil for the first).
type TrendFigure struct {
	Metric, Name, Unit string
	P                  float64 // 0.5, 0.95, 0.99; 0 for the error rate
	HigherIsBetter     bool
	N                  int64
	K                  *int64 // errors, for the error rate
	Value              *float64
	TooFew             bool

	Prev         *time.Time
	PrevLabel    string
	PrevN        int64
	PrevValue    *float64
	Delta        *float64
	Lo, Hi       *float64 // the change's 95% interval; nil when too few
	ChangeTooFew bool
	Significant  bool
}

// TrendChange is one figure's change between consecutive periods.
type TrendChange struct {
	Slice  string
	All    bool
	Period string // the later period's label
	// Share is the slice's share of all requests in the later period.
	Share float64
	TrendFigure
}

// TrendFigures are the figures of a trend, in the order a report shows
// them: metric, quantile (0: a share), name.
var TrendFigures = []struct {
	Metric string
	P      float64
	Name   string
	Unit   string
}{
	{"client_e2e", 0.5, "client E2E", "ms"},
	{"client_e2e", 0.95, "client E2E", "ms"},
	{"client_e2e", 0.99, "client E2E", "ms"},
	{"client_ttft", 0.95, "client TTFT", "ms"},
	{"tps_user", 0.5, "per-user tokens/s", "tok/s"},
	{"network", 0.95, "network", "ms"},
	{"application", 0.95, "application", "ms"},
	{"queue", 0.95, "queue", "ms"},
	{"model", 0.95, "model", "ms"},
	{"error_rate", 0, "error rate", "share"},
}

// Worse reports whether the change makes the figure worse.
func (f TrendFigure) Worse() bool {
	if f.Delta == nil {
		return false
	}
	if f.HigherIsBetter {
		return *f.Delta < 0
	}
	return *f.Delta > 0
}

// PeriodLabel names a period: its UTC day, or "week of" its Monday.
func PeriodLabel(unit string, t time.Time) string {
	d := t.UTC().Format("2006-01-02")
	if unit == PeriodWeek {
		return "week of " + d
	}
	return d
}

// trend runs queries/periods.sql over the sliced view, its quantiles
// first (pct_ci.sql into period_pct), by unit (Summarize checked it).
func trend(ctx context.Context, db *sql.DB, unit string, by []string) (*Trend, error) {
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE period_unit AS SELECT "+duck.Quote(unit)+" AS unit"); err != nil {
		return nil, fmt.Errorf("period: %w", err)
	}
	if err := pctTable(ctx, db, "period", periodQuantiles); err != nil {
		return nil, err
	}
	rows, err := duck.Rows(ctx, db, "periods")
	if err != nil {
		return nil, err
	}
	t := &Trend{Unit: unit, By: by}
	type key struct{ slice, period string }
	sliceAt := map[string]int{}
	periodAt := map[key]int{}
	seen := map[time.Time]bool{}
	for _, r := range rows {
		start := duck.Time(r["period"])
		if start == nil {
			continue
		}
		all := r["is_all"] == true
		label := "all requests"
		if !all {
			var parts []string
			for i, v := range duck.List(r["slice_key"]) {
				s := "(none)"
				if v != nil {
					s = duck.String(v)
				}
				col := "?"
				if i < len(t.By) {
					col = t.By[i]
				}
				parts = append(parts, col+"="+s)
			}
			label = strings.Join(parts, ", ")
		}
		si, ok := sliceAt[label]
		if !ok {
			t.Slices = append(t.Slices, TrendSlice{All: all, Label: label})
			si = len(t.Slices) - 1
			sliceAt[label] = si
		}
		pk := key{label, start.String()}
		pi, ok := periodAt[pk]
		if !ok {
			p := TrendPeriod{Start: start.UTC(), Label: PeriodLabel(unit, *start), Requests: duck.Int(r["requests"]),
				WindowFirst: duck.Time(r["window_first"]), WindowLast: duck.Time(r["window_last"])}
			for _, f := range TrendFigures {
				p.Figures = append(p.Figures, TrendFigure{Metric: f.Metric, Name: f.Name, Unit: f.Unit, P: f.P,
					HigherIsBetter: f.Metric == "tps_user"})
			}
			t.Slices[si].Periods = append(t.Slices[si].Periods, p)
			pi = len(t.Slices[si].Periods) - 1
			periodAt[pk] = pi
		}
		if all && !seen[start.UTC()] {
			seen[start.UTC()] = true
			t.Periods = append(t.Periods, start.UTC())
		}
		metric := duck.String(r["metric"])
		p := 0.0
		if v := duck.Float(r["p"]); v != nil {
			p = *v
		}
		for fi := range t.Slices[si].Periods[pi].Figures {
			f := &t.Slices[si].Periods[pi].Figures[fi]
			if f.Metric != metric || f.P != p {
				continue
			}
			f.N, f.Value, f.TooFew = duck.Int(r["n"]), duck.Float(r["value"]), r["too_few"] == true
			if r["k"] != nil {
				k := duck.Int(r["k"])
				f.K = &k
			}
			if prev := duck.Time(r["prev_period"]); prev != nil {
				u := prev.UTC()
				f.Prev, f.PrevLabel = &u, PeriodLabel(unit, u)
				f.PrevN, f.PrevValue, f.Delta = duck.Int(r["prev_n"]), duck.Float(r["prev_value"]), duck.Float(r["delta"])
				f.Lo, f.Hi = duck.Float(r["lo"]), duck.Float(r["hi"])
				f.ChangeTooFew, f.Significant = r["change_too_few"] == true, r["significant"] == true
			}
		}
	}
	sort.Slice(t.Periods, func(i, j int) bool { return t.Periods[i].Before(t.Periods[j]) })
	allRequests := map[time.Time]int64{}
	for si := range t.Slices {
		s := &t.Slices[si]
		sort.Slice(s.Periods, func(i, j int) bool { return s.Periods[i].Start.Before(s.Periods[j].Start) })
		for pi, p := range s.Periods {
			if s.All {
				allRequests[p.Start] = p.Requests
			} else if pi > 0 && p.Requests == allRequests[p.Start] && s.Periods[pi-1].Requests == allRequests[s.Periods[pi-1].Start] {
				continue // the slice is all requests in both periods: the same change
			}
			for _, f := range p.Figures {
				if f.Prev != nil && f.Delta != nil && f.Lo != nil && f.Hi != nil {
					share := 1.0
					if n := allRequests[p.Start]; n > 0 {
						share = float64(p.Requests) / float64(n)
					}
					t.Changes = append(t.Changes, TrendChange{Slice: s.Label, All: s.All, Period: p.Label, Share: share, TrendFigure: f})
				}
			}
		}
	}
	sort.SliceStable(t.Changes, func(i, j int) bool { return largestFirst(t.Changes[i], t.Changes[j]) })
	return t, nil
}

// largestFirst orders changes: larger than the noise first, then by
// impact: the size relative to the previous period's value (an error
// rate's relative to it or to 1%, whichever is larger, so that a rise
// from 0 is not infinitely large) times the slice's share of the
// period's requests, so that a change of all requests comes before the
// same change in each of its slices; then all requests before slices.
func largestFirst(a, b TrendChange) bool {
	if a.Significant != b.Significant {
		return a.Significant
	}
	ra, rb := relSize(a.TrendFigure)*a.Share, relSize(b.TrendFigure)*b.Share
	if ra != rb {
		return ra > rb
	}
	return a.All && !b.All
}

func relSize(f TrendFigure) float64 {
	base := 0.0
	if f.PrevValue != nil {
		base = math.Abs(*f.PrevValue)
	}
	if f.Unit == "share" {
		base = math.Max(base, 0.01)
	}
	if base == 0 {
		return math.Inf(1)
	}
	return math.Abs(*f.Delta) / base
}

// Changed is the period's figures whose change from the previous period
// is larger than the noise; Compared how many could be judged.
func (p TrendPeriod) Changed() (changed []TrendFigure, compared int) {
	for _, f := range p.Figures {
		if f.Lo != nil && f.Hi != nil {
			compared++
		}
		if f.Significant {
			changed = append(changed, f)
		}
	}
	return changed, compared
}

// First reports whether the period is the slice's first (nothing to
// compare with).
func (p TrendPeriod) First() bool {
	for _, f := range p.Figures {
		if f.Prev != nil {
			return false
		}
	}
	return true
}
