package analyze

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// TestSteps: Run and Summarize name each step as they begin it, to the
// function duck.WithStep put in their context.
func TestSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, analyzetest.Standard(), analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	var steps []string
	record := duck.WithStep(ctx, func(name string) { steps = append(steps, name) })
	if _, err := RunWith(record, dir, duck.Resources{Threads: 1}); err != nil {
		t.Fatal(err)
	}
	// Then one step per table of queries/requests/ (its views are no work
	// of their own), the write last.
	rsteps, err := requestSteps()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"matching TGI records", "joining tiers into requests.parquet"}
	for _, st := range rsteps {
		if st.Kind == queries.Table {
			want = append(want, "joining tiers: "+st.Writes)
		}
	}
	want = append(want, "joining tiers: writing requests.parquet", "coverage")
	if strings.Join(steps, "|") != strings.Join(want, "|") {
		t.Errorf("Run's steps: %q, want %q", steps, want)
	}
	steps = nil
	if _, err := summarize1(record, dir, SummaryOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains("|"+strings.Join(steps, "|")+"|", "|slices|") || !strings.Contains("|"+strings.Join(steps, "|")+"|", "|coverage|") {
		t.Errorf("Summarize's steps: %q, want slices and coverage among them", steps)
	}
}

// TestRunInterrupted: a Run whose context ends as it starts writing
// requests.parquet (Ctrl-C) leaves the previous requests.parquet as it was
// and no temporary file.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// a copy of the standard fixture's analysis
	dir, st, _ := runFixture(t, analyzetest.Standard(), analyzetest.DefaultOffsets)
	before, err := os.ReadFile(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	interrupted := errors.New("interrupted")
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	_, err = RunWith(duck.WithStep(cctx, func(name string) {
		if strings.HasPrefix(name, "joining tiers") {
			cancel(interrupted)
		}
	}), dir, duck.Resources{Threads: 1})
	if err == nil {
		t.Fatal("an interrupted Run succeeded")
	}
	if after, err := os.ReadFile(st.Path); err != nil || !bytes.Equal(before, after) {
		t.Errorf("requests.parquet changed by an interrupted Run (%v)", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmps) > 0 {
		t.Errorf("an interrupted Run left %v", tmps)
	}
}

// TestQueryInterrupted: the DuckDB driver stops a query that is running
// when its context ends (duckdb_interrupt), rather than finishing it: a
// query over 10^10 rows, which takes over a minute here, returns an error soon
// after the cancel.
func TestQueryInterrupted(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	var n int64
	err = db.QueryRowContext(ctx, "SELECT count(*) FROM range(100000) a, range(100000) b WHERE (a.range * 7 + b.range) % 13 = 5").Scan(&n)
	if err == nil {
		t.Fatalf("the query ran to its end (%d rows) despite the cancel", n)
	}
}
