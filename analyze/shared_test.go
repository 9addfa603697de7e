package analyze

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// TestMain removes the shared analyses of the fixtures.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, r := range sharedRuns {
		if r.dir != "" {
			os.RemoveAll(r.dir)
		}
	}
	os.Exit(code)
}

// sharedRun is a fixture at its offsets, written and analyzed once per
// test binary for the tests that read it (runFixture hands each a copy of
// its own).
type sharedRun struct {
	fixture func() analyzetest.Fixture
	off     analyzetest.Offsets
	once    sync.Once
	dir     string // removed by TestMain
	st      RunStats
	err     error
}

// sharedRuns are the fixtures several tests analyze.
var sharedRuns = []*sharedRun{
	{fixture: analyzetest.Standard, off: analyzetest.DefaultOffsets},
	{fixture: contractFixture, off: analyzetest.DefaultOffsets},
	{fixture: analyzetest.Trend, off: analyzetest.DefaultOffsets},
	{fixture: serverFormatsFixture, off: analyzetest.ServerOffsets},
}

// sharedFixture is the sharedRun of f at off, if it is one.
func sharedFixture(f analyzetest.Fixture, off analyzetest.Offsets) *sharedRun {
	for _, r := range sharedRuns {
		if off == r.off && reflect.DeepEqual(f, r.fixture()) {
			return r
		}
	}
	return nil
}

// runShared is runFixture of r's fixture at its offsets: a copy,
// in the test's own temporary directory, of the shared analysis, with the
// RunStats Run gives there.
func runShared(t *testing.T, r *sharedRun) (string, *RunStats, map[string]map[string]any) {
	t.Helper()
	r.once.Do(func() {
		r.err = errors.New("the test that analyzed it stopped")
		dir, err := os.MkdirTemp("", "infertrace-analyze-")
		if err != nil {
			r.err = err
			return
		}
		r.dir = dir
		ctx := context.Background()
		if err := analyzetest.Write(ctx, dir, r.fixture(), r.off); err != nil {
			r.err = err
			return
		}
		st, err := Run(ctx, dir)
		if err != nil {
			r.err = err
			return
		}
		r.st, r.err = *st, nil
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dir, os.DirFS(r.dir)); err != nil {
		t.Fatal(err)
	}
	st := r.st
	st.Path = filepath.Join(dir, RequestsFile)
	st.Removed = append([]string(nil), st.Removed...)
	return dir, &st, readRequests(t, st.Path)
}

// summarize1 is Summarize with one DuckDB thread unless opts set threads:
// the fixtures are small and the tests run in parallel on few cores,
// where more threads only contend (a tenth more CPU per analysis), and no
// figure depends on them. runFixture analyzes with one thread too; the
// shared analyses (runShared) and the Summarize of TestRunMissingTier keep
// one thread per core, as users run it.
func summarize1(ctx context.Context, dir string, opts SummaryOptions) (*Result, error) {
	if opts.Resources.Threads == 0 {
		opts.Resources.Threads = 1
	}
	return Summarize(ctx, dir, opts)
}

// judge1 checks and judges what opts names (evals, prices, a contract)
// over the analyzed dir as Summarize does (JudgeContract, over sliced),
// on one DuckDB thread, without the summary around it: for the tests of
// the errors of those checks, which Summarize returns as they are
// (TestContractSelectsNothing and TestEvalsErrors show it once each).
func judge1(ctx context.Context, dir string, opts SummaryOptions) error {
	db, closeDB, err := OpenAnalyzed(ctx, dir, duck.Resources{Threads: 1})
	if err != nil {
		return err
	}
	defer closeDB()
	if err := RegisterSliced(ctx, db, DefaultBy, nil); err != nil {
		return err
	}
	_, err = JudgeContract(ctx, db, opts)
	return err
}

// openMemory1 is duck.OpenMemory on one DuckDB thread, for the reason
// summarize1 gives.
func openMemory1(ctx context.Context) (*sql.DB, error) {
	db, err := duck.OpenMemory(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, "SET threads = 1"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
