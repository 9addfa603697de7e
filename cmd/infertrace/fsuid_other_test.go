//go:build !linux

package main

import (
	"os"
	"testing"
)

// withoutFileAccessRights runs f as the current user; root reads every
// directory, so the test that needs permission bits to hold is skipped.
func withoutFileAccessRights(t *testing.T, f func()) {
	t.Helper()
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not hold")
	}
	f()
}
