// Command infertrace attributes LLM request latency to network, application,
// queueing and model from the logs of clients, gateways and inference
// servers. See doc.go for usage.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
