package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/explain"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/report"
)

// cmdExplain: infertrace explain DIR [REQUEST_ID...] [--client X] [--region R]
// [--model M] [--from T] [--to T].
func cmdExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "explain")
	var o explain.Options
	fs.StringVar(&o.Client, "client", "", "without IDs: the slowest requests of client `NAME`")
	fs.StringVar(&o.Region, "region", "", "without IDs: the slowest requests of `REGION`")
	fs.StringVar(&o.Model, "model", "", "without IDs: the slowest requests of `MODEL`")
	from := fs.String("from", "", "without IDs: requests starting at or after `TIME` ("+timeSyntax+")")
	to := fs.String("to", "", "without IDs: requests starting before `TIME` (as --from)")
	fs.IntVar(&o.Limit, "limit", 5, "without IDs: how many requests, slowest first")
	fs.StringSliceVar(&o.By, "by", []string{"model", "use_case"}, "set each request against the requests with its values of these columns")
	out := fs.String("out", "", "write explain.md, explain.html and explain.json into this directory (default: print the Markdown)")
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErr("missing DIR, an analyzed directory (explain DIR [REQUEST_ID...])")
	}
	dir := fs.Arg(0)
	o.IDs = fs.Args()[1:]
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	o.Resources = res
	for _, b := range o.By {
		if !contains(analyze.SliceColumns, b) {
			return usageErr("--by names %q, which is no column to slice by%s", b, orWant(b, analyze.SliceColumns))
		}
	}
	if o.Limit < 1 {
		return usageErr("--limit %d: want 1 or more", o.Limit)
	}
	if len(o.IDs) > 0 && (o.Client != "" || o.Region != "" || o.Model != "" || *from != "" || *to != "") {
		return usageErr("give request IDs or --client/--region/--model/--from/--to, not both")
	}
	if err := analyze.CheckIngested(dir); err != nil {
		return err
	}
	if busy := ingest.CheckOutFree(dir); busy != nil {
		return busy
	}
	defer e.showProgress(*quiet)()
	w, err := dataWindow(ctx, dir, res, false, *from, *to)
	if err != nil {
		return err
	}
	if !w.From.IsZero() {
		o.From = &w.From
	}
	if !w.To.IsZero() {
		o.To = &w.To
	}
	ex, err := explain.Run(e.progress.steps(ctx, "explain"), dir, o)
	e.progress.done()
	if err != nil {
		return err
	}
	if len(ex.Requests) == 0 {
		if len(o.IDs) > 0 {
			return fmt.Errorf("no request of %s has the ID %s", dir, strings.Join(o.IDs, ", "))
		}
		return fmt.Errorf("no request of %s matches the filters", dir)
	}
	if *out == "" {
		return report.RenderExplain(e.stdout, "md", ex)
	}
	paths, err := report.WriteExplain(*out, ex)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(e.stdout, "explain: %s\n", p)
	}
	return nil
}
