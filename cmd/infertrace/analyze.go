package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// defaultMemoryLimit is the default of --memory-limit (duck.DefaultMemoryLimit).
const defaultMemoryLimit = "1GiB"

// resourceFlags bound DuckDB in analyze, report and run.
type resourceFlags struct {
	memory  string
	threads int
	profile string
}

func (f *resourceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.memory, "memory-limit", defaultMemoryLimit, "DuckDB memory limit (e.g. 1GiB, 1500MB); beyond it DuckDB spills to DIR/"+duck.TempDirName)
	fs.IntVar(&f.threads, "threads", 0, fmt.Sprintf("DuckDB threads, 1 to %d (0: one per core)", duck.MaxThreads))
	fs.StringVar(&f.profile, "profile", "", "write each step's wall time (`DIR`/steps.tsv) and DuckDB's profile of it (DIR/NNN-step.json)")
}

func (f *resourceFlags) resources() (duck.Resources, error) {
	limit, err := duck.ParseMemory(f.memory)
	if err != nil {
		return duck.Resources{}, usageErr("--memory-limit: %v", err)
	}
	if f.threads < 0 || f.threads > duck.MaxThreads {
		return duck.Resources{}, usageErr("--threads %d: want 1 to %d (the default, 0, is one per core)", f.threads, duck.MaxThreads)
	}
	return duck.Resources{MemoryLimit: limit, Threads: f.threads, Profile: f.profile}, nil
}

// doAnalyzeIn analyzes the store in dir for the requests that start in w
// (all of them when w is zero).
func doAnalyzeIn(ctx context.Context, e *env, dir string, res duck.Resources, w analyze.Window) error {
	st, err := analyze.RunWindow(e.progress.steps(ctx, "analyze"), dir, res, w)
	e.progress.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "analyzed %s\n", st)
	if len(st.Removed) > 0 && e.cmd != nil && e.cmd.name == "analyze" { // run writes a new report next
		fmt.Fprintf(e.stderr, "removed %s: made from the previous %s (infertrace report %s makes a new report)\n",
			textsafe.Escape(strings.Join(st.Removed, ", ")), analyze.RequestsFile, textsafe.Escape(dir))
	}
	return nil
}

func cmdAnalyze(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze")
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	var wf windowFlags
	wf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := oneDir(fs)
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
	lock, err := lockIngested(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	w, err := wf.window(ctx, dir, res, true)
	if err != nil {
		return err
	}
	defer e.showProgress(*quiet)()
	return doAnalyzeIn(ctx, e, dir, res, w)
}
