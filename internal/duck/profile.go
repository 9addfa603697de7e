package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A Profiler records, for each statement analyze or report runs, its wall
// time and the process's CPU time (user and system, all threads) over it in
// DIR/steps.tsv and DuckDB's own profile of it (operators, their
// rows and times) as DIR/NNN-name.json. A nil Profiler runs statements
// unrecorded.
type Profiler struct {
	dir string
	mu  sync.Mutex
	n   int
}

// newProfiler makes dir and returns a Profiler writing into it, numbering
// on after the steps already recorded there; an empty dir returns nil (no
// profiling).
func newProfiler(dir string) (*Profiler, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("profile: %w", err)
	}
	// Number on after the steps of an earlier command (analyze, then
	// report, into one directory).
	n := 0
	if b, err := os.ReadFile(filepath.Join(dir, "steps.tsv")); err == nil {
		n = strings.Count(string(b), "\n")
	}
	return &Profiler{dir: dir, n: n}, nil
}

var profileName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// profilers holds the Profiler of each database Open opened with a
// profile directory, so that every statement run on it is recorded.
var profilers sync.Map // *sql.DB -> *Profiler

// ProfilerOf returns the Profiler of db, or nil.
func ProfilerOf(db *sql.DB) *Profiler {
	if p, ok := profilers.Load(db); ok {
		return p.(*Profiler)
	}
	return nil
}

// query runs stmt on db as the step name, recording it when p is not nil;
// the recording ends when the returned rows are closed.
func (p *Profiler) Query(ctx context.Context, db *sql.DB, name, stmt string) (*sql.Rows, func(error) error, error) {
	if p == nil {
		rows, err := db.QueryContext(ctx, stmt)
		return rows, func(err error) error { return err }, err
	}
	done, err := p.Begin(ctx, db, name)
	if err != nil {
		return nil, nil, err
	}
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		return nil, nil, done(err)
	}
	return rows, done, nil
}

// exec runs stmt on db as the step name, recording it when p is not nil.
func (p *Profiler) Exec(ctx context.Context, db *sql.DB, name, stmt string) error {
	if p == nil {
		_, err := db.ExecContext(ctx, stmt)
		return err
	}
	done, err := p.Begin(ctx, db, name)
	if err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, stmt)
	return done(err)
}

// begin turns DuckDB's JSON profiling on for the next statement; the
// returned function turns it off and appends the step's wall and CPU time to
// steps.tsv.
func (p *Profiler) Begin(ctx context.Context, db *sql.DB, name string) (func(error) error, error) {
	p.mu.Lock()
	p.n++
	n := p.n
	p.mu.Unlock()
	out := filepath.Join(p.dir, fmt.Sprintf("%03d-%s.json", n, profileName.ReplaceAllString(name, "_")))
	for _, s := range []string{
		"SET enable_profiling = 'json'",
		"SET profiling_output = " + Quote(out),
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("profile: %w", err)
		}
	}
	t0, c0 := time.Now(), cpuTime()
	return func(err error) error {
		d, c := time.Since(t0), cpuTime()-c0
		if _, derr := db.ExecContext(ctx, "PRAGMA disable_profiling"); derr != nil && err == nil {
			err = fmt.Errorf("profile: %w", derr)
		}
		f, ferr := os.OpenFile(filepath.Join(p.dir, "steps.tsv"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if ferr == nil {
			fmt.Fprintf(f, "%03d\t%s\t%.3f\t%.3f\n", n, name, d.Seconds(), c.Seconds())
			ferr = f.Close()
		}
		if ferr != nil && err == nil {
			err = fmt.Errorf("profile: %w", ferr)
		}
		return err
	}, nil
}

// cpuTime is the CPU time (user and system) the process has used so far,
// over all its threads; 0 where the system does not say. A step's CPU time
// is the difference over it: DuckDB runs one statement at a time here, and
// on a shared machine it is steadier than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
