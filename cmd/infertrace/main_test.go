package main

import (
	"os"
	"testing"
)

// TestMain lets a test run a command of this package as a process of its
// own: the test binary is that command when INFERTRACE_TEST_MAIN is set.
func TestMain(m *testing.M) {
	if os.Getenv("INFERTRACE_TEST_MAIN") == "slow-to-stop" {
		slowToStop()
	}
	os.Exit(m.Run())
}
