package analyze

import (
	"context"
	"regexp"
	"testing"
)

// TestDuckDBVersion: the version of the linked library, as DuckDB names
// its releases (vMAJOR.MINOR.PATCH, maybe with a suffix for a dev build).
func TestDuckDBVersion(t *testing.T) {
	t.Parallel()
	v, err := DuckDBVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+`).MatchString(v) {
		t.Errorf("DuckDBVersion() = %q, want vMAJOR.MINOR.PATCH", v)
	}
}
