package analyze

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// duck.Resources.Profile records every statement of analyze and report: a line
// of steps.tsv (number, step, wall seconds, CPU seconds) and DuckDB's JSON
// profile of it.
func TestProfile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, analyzetest.Standard(), analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "prof")
	if _, err := RunWith(ctx, dir, duck.Resources{Profile: prof}); err != nil {
		t.Fatal(err)
	}
	if _, err := Summarize(ctx, dir, SummaryOptions{Resources: duck.Resources{Profile: prof}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(prof, "steps.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			t.Fatalf("steps.tsv line %q: want number, step, seconds, CPU seconds", l)
		}
		for _, v := range f[2:] {
			if s, err := strconv.ParseFloat(v, 64); err != nil || s < 0 {
				t.Fatalf("steps.tsv line %q: %q is no duration in seconds", l, v)
			}
		}
		seen[f[1]] = true
		files, _ := filepath.Glob(filepath.Join(prof, f[0]+"-*.json"))
		if len(files) != 1 {
			t.Fatalf("step %s %s: %d profiles, want 1", f[0], f[1], len(files))
		}
		var p struct {
			Latency  float64          `json:"latency"`
			Children []map[string]any `json:"children"`
		}
		pb, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(pb, &p); err != nil || len(p.Children) == 0 {
			t.Fatalf("%s: not a DuckDB profile with operators (%v)", files[0], err)
		}
	}
	// The steps of queries/requests/, its write, and report's queries, the
	// percentiles' steps among them (one run for every table of a report).
	for _, want := range []string{"req", "write", "coverage", "slices", "slice_ci_groups", "phase_ci_groups",
		"report_pct: pct_buckets", "report_pct: pct_need", "report_pct: pct_ci"} {
		if !seen[want] {
			t.Errorf("no step %s in steps.tsv (%d steps)", want, len(lines))
		}
	}
}
