package analyze

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// TestMain removes the shared analysis of the standard fixture.
func TestMain(m *testing.M) {
	code := m.Run()
	if standardRun.dir != "" {
		os.RemoveAll(standardRun.dir)
	}
	os.Exit(code)
}

// standardRun is analyzetest.Standard at analyzetest.DefaultOffsets,
// written and analyzed once per test binary for the tests that read it
// (runFixture hands each a copy of its own).
var standardRun struct {
	once sync.Once
	dir  string // removed by TestMain
	st   RunStats
	err  error
}

// isStandard says whether f at off is the standard fixture at its default
// offsets.
func isStandard(f analyzetest.Fixture, off analyzetest.Offsets) bool {
	return off == analyzetest.DefaultOffsets && reflect.DeepEqual(f, analyzetest.Standard())
}

// runStandard is runFixture of the standard fixture at its default
// offsets: a copy, in the test's own temporary directory, of the shared
// analysis, with the RunStats Run gives there.
func runStandard(t *testing.T) (string, *RunStats, map[string]map[string]any) {
	t.Helper()
	standardRun.once.Do(func() {
		standardRun.err = errors.New("the test that analyzed it stopped")
		dir, err := os.MkdirTemp("", "infertrace-analyze-")
		if err != nil {
			standardRun.err = err
			return
		}
		standardRun.dir = dir
		ctx := context.Background()
		if err := analyzetest.Write(ctx, dir, analyzetest.Standard(), analyzetest.DefaultOffsets); err != nil {
			standardRun.err = err
			return
		}
		st, err := Run(ctx, dir)
		if err != nil {
			standardRun.err = err
			return
		}
		standardRun.st, standardRun.err = *st, nil
	})
	if standardRun.err != nil {
		t.Fatal(standardRun.err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dir, os.DirFS(standardRun.dir)); err != nil {
		t.Fatal(err)
	}
	st := standardRun.st
	st.Path = filepath.Join(dir, RequestsFile)
	st.Removed = append([]string(nil), st.Removed...)
	return dir, &st, readRequests(t, st.Path)
}
