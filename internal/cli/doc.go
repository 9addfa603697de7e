// Package cli is infertrace's command line: Run parses the words after
// "infertrace", runs the command they name and returns its exit status.
// It holds one file per command with its pflag set and no logic of its own
// (the packages below do the work), the help texts (help.go) and the
// progress display (progress.go). cmd/infertrace's main calls Run with the
// process's standard streams, a context that ends at the first SIGINT or
// SIGTERM, and the version a release build was stamped with; the end-to-end
// suite (e2e/) calls it in its own process, side by side.
package cli
