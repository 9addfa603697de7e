package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/report"
)

type reportFlags struct {
	by, formats []string
	// The product contract and what it is judged on (see quality.go).
	qualityFlags
	window analyze.Window // --from/--to, set by the command
	// The trend per day or week (see period.go).
	periodFlags
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.by, "by", []string{"model", "use_case"}, "slice the report by these columns")
	fs.StringSliceVar(&f.formats, "format", slices.Clone(report.DefaultFormats), "report formats to write: md, html, json, csv")
	f.qualityFlags.register(fs)
	f.periodFlags.register(fs)
}

// check refuses unknown report formats before anything is read or locked.
func (f *reportFlags) check() error {
	for _, by := range f.by {
		if !slices.Contains(analyze.SliceColumns, by) {
			return usageErr("--by names %q, which is no column to slice by%s", by,
				orWant(by, analyze.SliceColumns))
		}
	}
	for _, format := range f.formats {
		if !slices.Contains(report.FormatNames, format) {
			return usageErr("--format names %q, which is no report format%s", format, orWant(format, report.FormatNames))
		}
	}
	if _, err := f.periodFlags.unit(); err != nil {
		return err
	}
	return f.qualityFlags.check()
}

// orWant is ": did you mean X?" for the value nearest v, else the list of
// values wanted.
func orWant(v string, values []string) string {
	if s := didYouMean(v, values, ""); s != "" {
		return s
	}
	return " (want any of " + strings.Join(values, ", ") + ")"
}

func doReport(ctx context.Context, e *env, dir string, f reportFlags, rs duck.Resources) error {
	if err := f.check(); err != nil {
		return err
	}
	period, _ := f.periodFlags.unit() // checked above
	opts := analyze.SummaryOptions{By: f.by, Resources: rs, Window: f.window,
		Evals: f.evals, Prices: f.prices, Contract: f.loaded, TokenEdges: f.edges, Period: period}
	res, err := analyze.Summarize(e.progress.steps(ctx, "report"), dir, opts)
	var trend *compare.TrendComparison
	if err == nil { // what changed in the latest period, once the summary's database is closed
		trend, err = compare.Trend(e.progress.steps(ctx, "report"), dir, opts, res.Trend)
	}
	if err != nil {
		e.progress.done()
		return err
	}
	e.progress.setStep("report: writing " + strings.Join(f.formats, ", "))
	if ctx.Err() != nil { // Ctrl-C before the reports: write none
		e.progress.done()
		return context.Cause(ctx)
	}
	paths, err := report.WriteFiles(dir, res, trend, f.formats)
	e.progress.done()
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(e.stdout, "report: %s\n", p)
	}
	return f.contractFails(res.Contract)
}

func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "report")
	var f reportFlags
	f.register(fs)
	var sf storeFlags
	sf.register(fs)
	st, err := sf.open(ctx, fs, args, false, f.check)
	if err != nil {
		return err
	}
	defer st.close()
	f.window = st.window
	defer e.showProgress(*sf.quiet)()
	return doReport(ctx, e, st.dir, f, st.res)
}
