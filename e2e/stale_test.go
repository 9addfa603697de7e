package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeRemovesStaleReport: analyze DIR --from --to replaces
// requests.parquet with fewer requests; the report made from the old one,
// and the other outputs made from it into DIR, go with it, and analyze
// says so. A failed analyze (the window is refused) leaves them.
func TestAnalyzeRemovesStaleReport(t *testing.T) {
	t.Parallel()
	_, out := simulateAndRunN(t, 2, 300)
	explain := filepath.Join(out, "explain.md")
	notes := filepath.Join(out, "notes.md")
	os.WriteFile(explain, []byte("an explain of the old requests\n"), 0o644)
	os.WriteFile(notes, []byte("the user's own\n"), 0o644)
	if code, _, _ := runCLI(t, "analyze", "--from", "2026-11-30T10:00:00Z", "--to", "2026-11-30T09:00:00Z", out); code != 2 {
		t.Fatalf("a reversed window: exit %d, want 2", code)
	}
	for _, name := range []string{"report.md", "report.html", "explain.md"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("a refused analyze removed %s: %v", name, err)
		}
	}
	code, stdout, stderr := runCLI(t, "analyze", "-q", "--from", "2026-11-30T10:00:00Z", "--to", "2026-11-30T10:00:20Z", out)
	if code != 0 {
		t.Fatalf("analyze: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, name := range []string{"report.md", "report.html", "report.json", "explain.md"} {
		if _, err := os.Stat(filepath.Join(out, name)); !os.IsNotExist(err) {
			t.Errorf("%s made from the previous requests.parquet is still there (%v)", name, err)
		}
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("analyze removed a file it did not make: %v", err)
	}
	want := "removed " + filepath.Join(out, "report.md") + ", " + filepath.Join(out, "report.html") + ", " +
		filepath.Join(out, "report.json") + ", " + explain +
		": made from the previous requests.parquet (infertrace report " + out + " makes a new report)\n"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr, want)
	}
	// Nothing left to remove: nothing said.
	if code, _, stderr := runCLI(t, "analyze", "-q", out); code != 0 || strings.Contains(stderr, "removed") {
		t.Errorf("analyze again: exit %d, stderr %q", code, stderr)
	}
}
