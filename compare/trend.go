package compare

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/infertrace/infertrace/analyze"
)

// Trend compares the last period of t, the trend of the summary of dir,
// with the one before it, as Run compares two windows; nil with fewer
// than two periods, or when one of them holds no request. opts are the
// options the summary was made with.
func Trend(ctx context.Context, dir string, opts analyze.SummaryOptions, t *analyze.Trend) (*TrendComparison, error) {
	if t == nil || len(t.Periods) < 2 {
		return nil, nil
	}
	span := func(start time.Time) (from, to *time.Time) {
		end := start.AddDate(0, 0, 1)
		if t.Unit == analyze.PeriodWeek {
			end = start.AddDate(0, 0, 7)
		}
		if w := opts.Window; !w.From.IsZero() && w.From.After(start) {
			start = w.From
		}
		if w := opts.Window; !w.To.IsZero() && w.To.Before(end) {
			end = w.To
		}
		return &start, &end
	}
	prev, last := t.Periods[len(t.Periods)-2], t.Periods[len(t.Periods)-1]
	bf, bt := span(prev)
	tf, tt := span(last)
	cmp, err := Run(ctx, Options{
		Baseline:  CompareSide{Dir: dir, From: bf, To: bt},
		Target:    CompareSide{Dir: dir, From: tf, To: tt},
		By:        opts.By,
		Resources: opts.Resources,
	})
	if errors.Is(err, ErrNoRequests) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s against %s: %w", analyze.PeriodLabel(t.Unit, last), analyze.PeriodLabel(t.Unit, prev), err)
	}
	return &TrendComparison{Baseline: analyze.PeriodLabel(t.Unit, prev), Target: analyze.PeriodLabel(t.Unit, last),
		Comparison: cmp, Significant: cmp.Significant, Compared: cmp.Compared}, nil
}
