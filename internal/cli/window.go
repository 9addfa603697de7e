package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/internal/duck"
)

// timeSyntax is how every --from and --to of infertrace is written
// (analyze.ParseTime).
const timeSyntax = "HH:MM[:SS] UTC on the data's first day, a date (its midnight UTC), or RFC 3339"

// windowFlags are --from and --to of analyze, report and run.
type windowFlags struct{ from, to string }

func (f *windowFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.from, "from", "", "only requests that start at or after `TIME` ("+timeSyntax+")")
	fs.StringVar(&f.to, "to", "", "only requests that start before `TIME` (as --from)")
}

// check refuses a --from or --to that is no time, before anything is
// read or locked.
func (f *windowFlags) check() error {
	anyDay := func() (time.Time, error) { return time.Time{}, nil }
	for _, b := range [][2]string{{"--from", f.from}, {"--to", f.to}} {
		if b[1] == "" {
			continue
		}
		if _, err := analyze.ParseTime(b[1], anyDay); err != nil {
			return usageErr("%s %v", b[0], err)
		}
	}
	return nil
}

// window is --from and --to read against dir's data (see dataWindow).
func (f *windowFlags) window(ctx context.Context, dir string, res duck.Resources, store bool) (analyze.Window, error) {
	return dataWindow(ctx, dir, res, store, f.from, f.to)
}

// dataWindow reads --from and --to (either may be empty) as
// analyze.ParseTime does, HH:MM on the first day of dir's data: its
// requests.parquet, or with store its ingested records. A window that
// ends before it starts, or in which no request of the data starts, is
// refused with the data's own window: its first and last start.
func dataWindow(ctx context.Context, dir string, res duck.Resources, store bool, from, to string) (analyze.Window, error) {
	var w analyze.Window
	if from == "" && to == "" {
		return w, nil
	}
	var first, last *time.Time
	var spanErr error
	looked := false
	span := func() error {
		if !looked {
			first, last, spanErr = analyze.DataSpan(ctx, dir, res, store)
			looked = true
		}
		return spanErr
	}
	what := "requests start"
	if store {
		what = "records start"
	}
	for _, b := range []struct {
		flag, v string
		dst     *time.Time
	}{{"--from", from, &w.From}, {"--to", to, &w.To}} {
		if b.v == "" {
			continue
		}
		day := func() (time.Time, error) {
			if err := span(); err != nil {
				return time.Time{}, err
			}
			if first == nil {
				return time.Time{}, fmt.Errorf("%s holds no request to place %s %s on a day", dir, b.flag, b.v)
			}
			return *first, nil
		}
		t, err := analyze.ParseTime(b.v, day)
		if err != nil {
			if spanErr != nil || (first == nil && looked) {
				return w, err
			}
			return w, usageErr("%s %v", b.flag, err)
		}
		*b.dst = t
	}
	if err := span(); err != nil {
		if store {
			// A store whose records cannot all be read (a damaged
			// part outside the window) is still analyzed within
			// it: analyze says what it cannot read.
			if err := w.Check(); err != nil {
				return w, usageErr("%v", err)
			}
			return w, nil
		}
		return w, err
	}
	if first == nil {
		return w, fmt.Errorf("%s holds no request: there is no window to choose within", dir)
	}
	return w, windowHolds(w, *first, *last, what)
}

// windowHolds refuses a window w that ends before it starts, or that
// holds none of the data's starts, first to last: it says the data's own
// window.
func windowHolds(w analyze.Window, first, last time.Time, what string) error {
	data := fmt.Sprintf("the data's %s from %s to %s", what, bound(first), bound(last))
	if !w.From.IsZero() && !w.To.IsZero() && !w.From.Before(w.To) {
		return usageErr("the window is empty: --from %s is not before --to %s; %s", bound(w.From), bound(w.To), data)
	}
	if (!w.To.IsZero() && !w.To.After(first)) || (!w.From.IsZero() && w.From.After(last)) {
		return usageErr("no request starts in the window %s: %s", w, data)
	}
	return nil
}

func bound(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
