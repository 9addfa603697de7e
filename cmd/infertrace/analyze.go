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
	var sf storeFlags
	sf.register(fs)
	st, err := sf.open(ctx, fs, args, true, nil)
	if err != nil {
		return err
	}
	defer st.close()
	defer e.showProgress(*sf.quiet)()
	return doAnalyzeIn(ctx, e, st.dir, st.res, st.window)
}

// storeFlags are the flags of a command that works on one ingested store,
// DIR: --quiet, the resource flags and --from/--to.
type storeFlags struct {
	quiet *bool
	rs    resourceFlags
	win   windowFlags
}

func (f *storeFlags) register(fs *pflag.FlagSet) {
	f.quiet = quietFlag(fs)
	f.rs.register(fs)
	f.win.register(fs)
}

// store is an ingested store a command holds locked.
type store struct {
	dir    string
	res    duck.Resources
	window analyze.Window
	close  func()
}

// open parses args (DIR and the flags), checks them and then what check
// adds, and locks DIR, which must hold an ingest; its window is --from/--to
// within the store (analyzing says whether the store is to be analyzed for
// it, see windowFlags.window).
func (f *storeFlags) open(ctx context.Context, fs *pflag.FlagSet, args []string, analyzing bool, check func() error) (*store, error) {
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	dir, err := oneDir(fs)
	if err != nil {
		return nil, err
	}
	res, err := f.rs.resources()
	if err != nil {
		return nil, err
	}
	if err := f.win.check(); err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(); err != nil {
			return nil, err
		}
	}
	lock, err := lockIngested(dir)
	if err != nil {
		return nil, err
	}
	w, err := f.win.window(ctx, dir, res, analyzing)
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	return &store{dir: dir, res: res, window: w, close: func() { lock.Unlock() }}, nil
}
