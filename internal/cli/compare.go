package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/report"
)

// cmdCompare: infertrace compare BASELINE_DIR TARGET_DIR, or
// infertrace compare DIR --baseline SPEC --target SPEC.
func cmdCompare(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "compare")
	baseline := fs.String("baseline", "", "the baseline `SPEC` within a DIR: a time window HH:MM[:SS]-HH:MM[:SS] (UTC, on the data's first day) or FROM/TO, each "+timeSyntax+", or COLUMN=VALUE of a slice column")
	target := fs.String("target", "", "the target `SPEC` within a DIR, as --baseline")
	by := fs.StringSlice("by", []string{"model", "use_case"}, "slice the per-slice tables by these columns")
	out := fs.String("out", "", "write compare.md, compare.html and compare.json into this directory (default: print the Markdown)")
	var qf qualityFlags // --contract, --evals, --prices: the verdict on the change
	qf.register(fs)
	fs.Lookup("contract").Usage = "judge the change against the contract in `FILE` (TOML or YAML): each constraint on both sides, against its may_worsen; the verdict first"
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := qf.check(); err != nil {
		return err
	}
	for _, b := range *by {
		if !contains(analyze.SliceColumns, b) {
			return usageErr("--by names %q, which is no column to slice by%s", b, orWant(b, analyze.SliceColumns))
		}
	}
	var dirs []string
	switch fs.NArg() {
	case 1:
		if *baseline == "" || *target == "" {
			return usageErr("with one DIR, say what to compare with --baseline and --target (a time window or COLUMN=VALUE)")
		}
		dirs = []string{fs.Arg(0), fs.Arg(0)}
	case 2:
		dirs = []string{fs.Arg(0), fs.Arg(1)}
	case 0:
		return usageErr("missing DIR: compare BASELINE_DIR TARGET_DIR, or compare DIR --baseline SPEC --target SPEC")
	default:
		return usageErr("want one or two DIRs, not %d arguments (%s)", fs.NArg(), strings.Join(fs.Args(), " "))
	}
	defer e.showProgress(*quiet)()
	var sides [2]compare.CompareSide
	for i, spec := range []string{*baseline, *target} {
		flag := []string{"--baseline", "--target"}[i]
		dir := dirs[i]
		if err := analyze.CheckIngested(dir); err != nil {
			return err
		}
		if busy := ingest.CheckOutFree(dir); busy != nil {
			return busy
		}
		side, err := parseSide(ctx, dir, flag, spec, res)
		if err != nil {
			return err
		}
		sides[i] = side
	}
	cmp, err := compare.Run(e.progress.steps(ctx, "compare"), compare.Options{Baseline: sides[0], Target: sides[1], By: *by, Resources: res,
		Contract: qf.loaded, Evals: qf.evals, Prices: qf.prices})
	e.progress.done()
	if err != nil {
		return err
	}
	if *out == "" {
		if err := report.RenderCompare(e.stdout, "md", cmp); err != nil {
			return err
		}
		return qf.changeRejected(cmp.Verdict)
	}
	if cmp.Verdict != nil {
		fmt.Fprintln(e.stdout, report.VerdictText(cmp.Verdict))
	}
	for _, f := range report.CompareFindings(cmp) {
		fmt.Fprintf(e.stdout, "- %s\n", f)
	}
	paths, err := report.WriteCompare(*out, cmp)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(e.stdout, "compare: %s\n", p)
	}
	return qf.changeRejected(cmp.Verdict)
}

// parseSide reads one side's SPEC: empty (the whole dir), a time window,
// or COLUMN=VALUE.
func parseSide(ctx context.Context, dir, flag, spec string, res duck.Resources) (compare.CompareSide, error) {
	side := compare.CompareSide{Dir: dir}
	if spec == "" {
		return side, nil
	}
	if col, val, ok := strings.Cut(spec, "="); ok && !strings.Contains(col, ":") {
		if !contains(analyze.SliceColumns, col) {
			return side, usageErr("%s %q: %q is no slice column%s", flag, spec, col, orWant(col, analyze.SliceColumns))
		}
		side.Column, side.Value = col, val
		return side, nil
	}
	var noDay error
	day := func() (time.Time, error) {
		first, err := analyze.FirstStart(ctx, dir, res)
		if err == nil && first == nil {
			err = fmt.Errorf("%s holds no request to place the window %s on a day", dir, spec)
		}
		if err != nil {
			noDay = err
			return time.Time{}, err
		}
		return *first, nil
	}
	from, to, ok, err := analyze.ParseWindow(spec, day)
	if noDay != nil {
		return side, noDay
	}
	if err != nil {
		return side, usageErr("%s %v", flag, err)
	}
	if !ok {
		return side, usageErr("%s %q is no time window (HH:MM-HH:MM, or FROM/TO each "+timeSyntax+") and no COLUMN=VALUE", flag, spec)
	}
	first, last, err := analyze.DataSpan(ctx, dir, res, false)
	if err != nil {
		return side, err
	}
	if first != nil {
		if err := windowHolds(analyze.Window{From: from, To: to}, *first, *last, "requests start"); err != nil {
			return side, usageErr("%s %s: %v", flag, spec, strings.TrimPrefix(err.Error(), "usage: "))
		}
	}
	side.From, side.To = &from, &to
	return side, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
