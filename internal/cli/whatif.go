package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/report"
	"github.com/infertrace/infertrace/whatif"
)

// cmdWhatIf: infertrace whatif DIR [--replicas MODEL=N|+N] [--slots
// MODEL=N] [--traffic X] [--from T] [--to T] [--out DIR].
func cmdWhatIf(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "whatif")
	var o whatif.Options
	fs.StringArrayVar(&o.Replicas, "replicas", nil, "`MODEL=N` replicas of MODEL, or MODEL=+N / MODEL=-N more or fewer than logged (repeatable)")
	fs.StringArrayVar(&o.Slots, "slots", nil, "`MODEL=N`: each replica of MODEL runs at most N requests at once (repeatable)")
	fs.Float64Var(&o.Traffic, "traffic", 1, "play the logged arrivals `X` times as fast (1.5: half as much traffic again, same requests)")
	from := fs.String("from", "", "figures over the requests starting at or after `TIME` ("+timeSyntax+")")
	to := fs.String("to", "", "figures over the requests starting before `TIME` (as --from)")
	contractFile := fs.String("contract", "", "search the fewest replicas to add for the server queue, TTFT and E2E percentiles of contract `FILE` (the report's TOML or YAML) to hold")
	out := fs.String("out", "", "write whatif.md, whatif.html and whatif.json into this directory (default: print the Markdown)")
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErr("want one DIR, an analyzed directory (whatif DIR [--replicas MODEL=+1] [--slots MODEL=N] [--traffic X])")
	}
	dir := fs.Arg(0)
	if _, err := whatif.ParseChanges(o.Replicas, o.Slots); err != nil {
		return usageErr("%v", err)
	}
	if o.Traffic <= 0 {
		return usageErr("--traffic %v: want a factor more than 0", o.Traffic)
	}
	if *contractFile != "" {
		c, err := contract.Load(*contractFile, analyze.SliceColumns)
		if err != nil {
			return err
		}
		o.Contract = c
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	o.Resources = res
	if err := analyze.CheckIngested(dir); err != nil {
		return err
	}
	if busy := ingest.CheckOutFree(dir); busy != nil {
		return busy
	}
	defer e.showProgress(*quiet)()
	if o.Window, err = dataWindow(ctx, dir, res, false, *from, *to); err != nil {
		return err
	}
	r, err := whatif.Run(e.progress.steps(ctx, "whatif"), dir, o)
	e.progress.done()
	if err != nil {
		return err
	}
	if *out == "" {
		return report.RenderWhatIf(e.stdout, "md", r)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for _, format := range []string{"md", "html", "json"} {
		path := filepath.Join(*out, "whatif."+format)
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := report.RenderWhatIf(f, format, r); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "whatif: %s\n", path)
	}
	return nil
}
