package teststack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Scenario is one run of the whole stack.
type Scenario struct {
	Server ServerConfig
	// Auth puts the server's slow /auth endpoint in front of every request
	// (NGINX auth_request).
	Auth bool
	// NetDelay > 0 puts a DelayProxy between the clients and NGINX.
	NetDelay time.Duration
	Requests []Request
	// Combined requests go to the server block that logs "combined".
	Combined []Request
}

// Run is what one scenario left behind: the log files as each part wrote
// them, and each part's truth.
type Run struct {
	// Client is the AIPerf JSONL, Spans the collector's file, Gateway the
	// escape=json access log, Combined the combined one.
	Client, Spans, Gateway, Combined, ErrorLog string
	Clients                                    []ClientTruth
	CombinedClients                            []ClientTruth
	Server                                     map[string]ServerTruth
	Auth                                       map[string]AuthTruth
	// Fails are the failing upstream's first attempts, by request ID.
	Fails map[string]AuthTruth
}

// RunScenario starts the stack in dir, sends the load, stops everything
// (the server drained of requests whose clients left, the spans flushed,
// NGINX quit gracefully) and returns the files. An error wrapping
// ErrNoNginx means nginx is not installed.
func RunScenario(ctx context.Context, dir string, sc Scenario) (*Run, error) {
	run := &Run{Client: filepath.Join(dir, "client", "profile_export.jsonl"),
		Spans: filepath.Join(dir, "server", "otel-traces.jsonl")}
	for _, d := range []string{"client", "server", "nginx"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	col, err := StartCollector(run.Spans)
	if err != nil {
		return nil, err
	}
	cfg := sc.Server
	cfg.Collector = col.Endpoint()
	if cfg.Replica == "" {
		cfg.Replica = "stack-0"
	}
	srv, err := StartServer(ctx, cfg)
	if err != nil {
		col.Close()
		return nil, err
	}
	nc := NginxConfig{Upstream: srv.Addr, Failing: srv.FailAddr}
	if sc.Auth {
		nc.Auth = srv.Addr
	}
	// The ports are picked free, then bound by nginx: another process may
	// take one between; try again with others.
	var ng *Nginx
	for range 3 {
		if ng, err = StartNginx(filepath.Join(dir, "nginx"), nc); err == nil || !strings.Contains(err.Error(), "Address already in use") {
			break
		}
	}
	if err != nil {
		srv.Stop(ctx)
		col.Close()
		return nil, err
	}
	run.Gateway, run.Combined, run.ErrorLog = ng.AccessJSON, ng.AccessCombined, ng.ErrorLog
	base := "http://" + ng.Addr
	var proxy *DelayProxy
	if sc.NetDelay > 0 {
		if proxy, err = StartDelayProxy(ng.Addr, sc.NetDelay); err != nil {
			ng.Stop()
			srv.Stop(ctx)
			col.Close()
			return nil, err
		}
		base = "http://" + proxy.Addr
	}
	run.Clients = RunLoad(ctx, LoadConfig{Base: base, Requests: sc.Requests, Timeout: 60 * time.Second})
	if len(sc.Combined) > 0 {
		run.CombinedClients = RunLoad(ctx, LoadConfig{Base: "http://" + ng.CombinedAddr, Requests: sc.Combined, Timeout: 30 * time.Second})
	}
	errs := []error{srv.Drain(30 * time.Second)}
	if proxy != nil {
		proxy.Close()
	}
	errs = append(errs, ng.Stop())
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	errs = append(errs, srv.Stop(sctx))
	cancel()
	errs = append(errs, col.Close(), WriteAIPerf(run.Client, run.Clients))
	run.Server, run.Auth, run.Fails = srv.Truth(), srv.Auth(), srv.Fails()
	if err := errors.Join(errs...); err != nil {
		return run, fmt.Errorf("stack: %w", err)
	}
	return run, nil
}
