// Command infertrace attributes LLM request latency to network, application,
// queueing and model from the logs of clients, gateways and inference
// servers. See doc.go for usage.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := interruptible(context.Background())
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
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
