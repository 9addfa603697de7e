package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
	fs.StringVar(&f.profile, "profile", "", "write each step's wall and CPU time (`DIR`/steps.tsv) and DuckDB's profile of it (DIR/NNN-step.json)")
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
	var pf partitionFlags
	pf.register(fs)
	var i, n int
	st, err := sf.open(ctx, fs, args, true, func() error {
		var err error
		if i, n, err = pf.part(os.Getenv); err != nil {
			return err
		}
		if n == 0 {
			if pf.facts {
				return usageErr("--facts writes the facts of a part: give --partition I/N or --partitions N")
			}
			return nil
		}
		if sf.win.from != "" || sf.win.to != "" {
			return usageErr("--partition analyzes the whole store in parts: it takes no --from or --to")
		}
		sf.shared = true // the other parts are written beside this one
		return nil
	})
	if err != nil {
		return err
	}
	defer st.close()
	defer e.showProgress(*sf.quiet)()
	if n == 0 {
		return doAnalyzeIn(ctx, e, st.dir, st.res, st.window)
	}
	if pf.facts {
		wrote, err := analyze.WritePartFacts(e.progress.steps(ctx, "analyze"), st.dir, st.res, i, n)
		e.progress.done()
		if err != nil {
			return err
		}
		if wrote {
			fmt.Fprintf(e.stdout, "wrote the facts of part %d of %d into %s\n", i, n, textsafe.Escape(filepath.Join(st.dir, analyze.FactsDir)))
		} else {
			fmt.Fprintf(e.stdout, "part %d of %d needs no facts: no cut of the store's partitions lies inside a session, or the part holds none\n", i, n)
		}
		return nil
	}
	res, err := analyze.RunPart(e.progress.steps(ctx, "analyze"), st.dir, st.res, i, n)
	e.progress.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "analyzed part %d of %d: %s\n", i, n, res)
	if len(res.Removed) > 0 {
		fmt.Fprintf(e.stderr, "removed %s: superseded by the parts of %d\n", textsafe.Escape(strings.Join(res.Removed, ", ")), n)
	}
	return nil
}

// jobIndexEnv is the environment variable in which a Kubernetes Indexed Job
// gives each pod its completion index (0 to completions - 1).
const jobIndexEnv = "JOB_COMPLETION_INDEX"

// partitionFlags are analyze's --partition I/N and --partitions N (I then
// from JOB_COMPLETION_INDEX).
type partitionFlags struct {
	partition string
	n         int
	facts     bool
}

func (f *partitionFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.partition, "partition", "", "analyze only part `I/N` (I from 0) of the store, into DIR/"+analyze.PartsDir+"/part-I-of-N.parquet (docs/partitions.md)")
	fs.IntVar(&f.n, "partitions", 0, "as --partition I/`N`, I from $"+jobIndexEnv+" (a Kubernetes Indexed Job's completion index)")
	fs.BoolVar(&f.facts, "facts", false, "write only the facts of the part into DIR/"+analyze.FactsDir+"/ (a first pass over every part, needed before any part is analyzed when the partitions cut inside a session)")
}

// part is the part to analyze, i of n; n is 0 without either flag.
func (f *partitionFlags) part(getenv func(string) string) (i, n int, err error) {
	switch {
	case f.partition != "" && f.n != 0:
		return 0, 0, usageErr("give --partition I/N or --partitions N (with $%s), not both", jobIndexEnv)
	case f.partition != "":
		a, b, ok := strings.Cut(f.partition, "/")
		i, err1 := strconv.Atoi(a)
		n, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
			return 0, 0, usageErr("--partition %q: want I/N, two whole numbers with 0 <= I < N (0/3, 1/3, 2/3)", f.partition)
		}
		return i, n, nil
	case f.n < 0:
		return 0, 0, usageErr("--partitions %d: want a positive number of parts", f.n)
	case f.n > 0:
		v, set := getenv(jobIndexEnv), getenv(jobIndexEnv) != ""
		if !set {
			return 0, 0, usageErr("--partitions %d takes the part from $%s, which is not set: give --partition I/%d", f.n, jobIndexEnv, f.n)
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= f.n {
			return 0, 0, usageErr("$%s is %q: want a whole number from 0 to %d for --partitions %d", jobIndexEnv, textsafe.Escape(v), f.n-1, f.n)
		}
		return i, f.n, nil
	}
	return 0, 0, nil
}

// storeFlags are the flags of a command that works on one ingested store,
// DIR: --quiet, the resource flags and --from/--to.
type storeFlags struct {
	quiet *bool
	rs    resourceFlags
	win   windowFlags
	// shared: lock DIR with others that share it (analyze --partition).
	shared bool
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
	lockDir := lockIngested
	if f.shared {
		lockDir = lockIngestedShared
	}
	lock, err := lockDir(dir)
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
