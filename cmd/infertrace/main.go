// Command infertrace attributes LLM request latency to network, application,
// queueing and model from the logs of clients, gateways and inference
// servers. See doc.go for usage; the commands are internal/cli's.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/infertrace/infertrace/internal/cli"
)

// stampedVersion and stampedCommit are what a release build sets with
// -ldflags "-X main.stampedVersion=v0.5.0 -X main.stampedCommit=SHA"
// (Dockerfile, .github/workflows/release.yml), for a build whose
// information cannot say them: one from a source tree without .git, as
// in a Docker build context, has no VCS commit and the version (devel).
var stampedVersion, stampedCommit string

func main() {
	ctx, stop := interruptible(context.Background())
	code := cli.Run(ctx, cli.Stamp{Version: stampedVersion, Commit: stampedCommit}, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// interruptible returns a context that ends at the first SIGINT (Ctrl-C) or
// SIGTERM, for the command to stop cleanly. By the time it has ended the
// signals' default action is back, so a second Ctrl-C kills at once a run
// that is slow to stop.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	sig, stopSignals := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(parent)
	go func() {
		<-sig.Done()
		cause := context.Cause(sig)
		stopSignals()
		cancel(cause)
	}()
	return ctx, func() { stopSignals(); cancel(nil) }
}
