package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/textsafe"
)

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "run")
	var inf ingestFlags
	var rf reportFlags
	inf.register(fs)
	rf.register(fs)
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	var wf windowFlags
	wf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "name the logs with --client, --gateway or --server"); err != nil {
		return err
	}
	opt, err := inf.options(e)
	if err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	// One lock for the three steps: no other run slips in between.
	lock, err := lockOut(opt.Out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	defer e.showProgress(*quiet)()
	// Files that could not be read to the end are reported, and the rest is
	// still analyzed: a partial report beats none after an incident.
	ingestErr := doIngest(ctx, e, opt)
	if ingestErr != nil && ctx.Err() != nil {
		return ingestErr
	}
	if _, statErr := ingest.ReadManifest(opt.Out); statErr != nil {
		return ingestErr
	}
	// HH:MM is on the first day of the data just ingested.
	if rf.window, err = wf.window(ctx, opt.Out, res, true); err != nil {
		return err
	}
	if err := doAnalyzeIn(ctx, e, opt.Out, res, rf.window); err != nil {
		return err
	}
	if err := doReport(ctx, e, opt.Out, rf, res); err != nil {
		var v *verdictError
		if ingestErr != nil && errors.As(err, &v) {
			// Files not read whole come first (exit 1); the contract's
			// verdict on what was read is still said.
			fmt.Fprintf(e.stderr, "infertrace run: %s\n", textsafe.Escape(v.msg))
			return ingestErr
		}
		return err
	}
	return ingestErr
}
