//go:build !unix

package e2e

import (
	"os"
	"testing"
)

// runCLIWithoutFileAccessRights is runBin as the current user; root reads
// every directory, so the test that needs permission bits to hold is
// skipped.
func runCLIWithoutFileAccessRights(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not hold")
	}
	return runBin(t, args...)
}
