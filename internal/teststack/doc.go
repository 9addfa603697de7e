// Package teststack runs a small real serving stack on the loopback interface,
// for tests that check infertrace against what real components write:
//
//	client (Go load generator, AIPerf-shaped JSONL)
//	  → [delaying TCP proxy, when a scenario adds network delay]
//	  → NGINX (Debian's nginx, run unprivileged from a generated nginx.conf:
//	    proxy_buffering off, X-Request-Id forwarded, the escape=json "llm"
//	    log_format, a second server block logging "combined", an optional
//	    auth_request to a slow local endpoint, and an optional failing
//	    replica ahead of the good one, which NGINX retries past)
//	  → inference server (Go, OpenAI chat/completions with SSE streaming,
//	    a fixed number of slots with a real queue in front of them, sleeps
//	    for prefill and each decoded token; it records vLLM's llm_request
//	    span through the OpenTelemetry Go SDK, exported over OTLP/HTTP to a
//	    local receiver that writes each export as the Collector's file
//	    exporter does, one JSON line through pdata's JSON marshaller)
//
// Every part records the truth it knows (when a request arrived, waited,
// started, ended, when its client left), so a test can hold infertrace's
// attribution against it. Everything listens on 127.0.0.1 ports picked
// free, every loop is bounded, and Stop ends what Start started.
package teststack
