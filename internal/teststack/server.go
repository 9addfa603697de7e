package teststack

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// ServerConfig shapes the inference server.
type ServerConfig struct {
	// Slots is how many requests run at once; the others wait in a queue.
	Slots int
	// Prefill is the time to the first token once a request has a slot,
	// PerToken the time of each further token.
	Prefill, PerToken time.Duration
	// AuthDelay is how long GET /auth takes to answer 200.
	AuthDelay time.Duration
	// FailDelay > 0 starts a second, failing upstream on FailAddr: it
	// answers every chat request 502 after FailDelay, as a replica that is
	// going down does.
	FailDelay time.Duration
	// Replica names the server (resource service.instance.id).
	Replica string
	// Collector is the OTLP/HTTP traces endpoint the spans are exported to.
	Collector string
}

// ServerTruth is what the server knows of one request, on this host's
// clock (the test's own, for every part of the stack).
type ServerTruth struct {
	ID                                  string
	Arrival, Scheduled, FirstToken, End time.Time
	// ClientGone is when a write to the connection first failed (the
	// gateway had closed it because its client left); zero if never.
	ClientGone time.Time
	Tokens     int
	Stream     bool
}

// AuthTruth is one call of the auth endpoint (or of the failing upstream).
type AuthTruth struct {
	ID         string
	Start, End time.Time
}

// Server is the OpenAI-compatible inference server.
type Server struct {
	Addr string
	// FailAddr is the failing upstream's address (ServerConfig.FailDelay).
	FailAddr string
	cfg      ServerConfig
	slots    chan struct{}
	srv      *http.Server
	tp       *sdktrace.TracerProvider
	tr       trace.Tracer

	mu    sync.Mutex
	truth map[string]*ServerTruth
	auth  map[string]*AuthTruth
	fails map[string]*AuthTruth
	fsrv  *http.Server
	wg    sync.WaitGroup
}

// chatRequest is the part of a chat/completions body the server reads.
type chatRequest struct {
	Model     string            `json:"model"`
	Messages  []json.RawMessage `json:"messages"`
	Stream    bool              `json:"stream"`
	MaxTokens int               `json:"max_tokens"`
}

// StartServer listens on a free loopback port.
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Slots < 1 {
		return nil, fmt.Errorf("server: %d slots", cfg.Slots)
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(cfg.Collector))
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx, resource.WithAttributes(
		attribute.String("service.name", "vllm"),
		attribute.String("service.instance.id", cfg.Replica),
	), resource.WithTelemetrySDK())
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(200*time.Millisecond), sdktrace.WithMaxQueueSize(8192)),
	)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: l.Addr().String(), cfg: cfg, slots: make(chan struct{}, cfg.Slots), tp: tp,
		tr:    tp.Tracer("vllm.llm_engine"),
		truth: map[string]*ServerTruth{}, auth: map[string]*AuthTruth{}, fails: map[string]*AuthTruth{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("GET /auth", s.authz)
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(l)
	if cfg.FailDelay > 0 {
		fl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			s.srv.Close()
			return nil, err
		}
		s.FailAddr = fl.Addr().String()
		fmux := http.NewServeMux()
		fmux.HandleFunc("POST /v1/chat/completions", s.fail)
		s.fsrv = &http.Server{Handler: fmux}
		go s.fsrv.Serve(fl)
	}
	return s, nil
}

func (s *Server) fail(w http.ResponseWriter, r *http.Request) {
	a := &AuthTruth{ID: r.Header.Get("X-Request-Id"), Start: time.Now()}
	io.Copy(io.Discard, r.Body)
	time.Sleep(s.cfg.FailDelay)
	http.Error(w, "upstream unavailable", http.StatusBadGateway)
	a.End = time.Now()
	s.mu.Lock()
	s.fails[a.ID] = a
	s.mu.Unlock()
}

// Fails returns the failing upstream's record of each request it failed.
func (s *Server) Fails() map[string]AuthTruth {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]AuthTruth, len(s.fails))
	for k, v := range s.fails {
		out[k] = *v
	}
	return out
}

func (s *Server) authz(w http.ResponseWriter, r *http.Request) {
	a := &AuthTruth{ID: r.Header.Get("X-Request-Id"), Start: time.Now()}
	time.Sleep(s.cfg.AuthDelay)
	a.End = time.Now()
	s.mu.Lock()
	s.auth[a.ID] = a
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	s.wg.Add(1)
	defer s.wg.Done()
	t := &ServerTruth{ID: r.Header.Get("X-Request-Id"), Arrival: time.Now()}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.MaxTokens < 1 || t.ID == "" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	t.Stream, t.Tokens = req.Stream, req.MaxTokens
	// vLLM's request ID for chat: "chatcmpl-" + the X-Request-Id header.
	rid := "chatcmpl-" + t.ID
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m) / 4 // a length, never the text
	}

	prefill := s.cfg.Prefill
	if v, err := strconv.Atoi(r.Header.Get("X-Stack-Prefill-Ms")); err == nil && v > 0 && v < 10000 {
		prefill = time.Duration(v) * time.Millisecond
	}
	s.slots <- struct{}{} // the queue: wait for a free slot
	t.Scheduled = time.Now()
	time.Sleep(prefill)
	t.FirstToken = time.Now()

	fl, _ := w.(http.Flusher)
	write := func(b []byte) {
		if !t.ClientGone.IsZero() {
			return
		}
		if _, err := w.Write(b); err == nil && fl != nil {
			err = http.NewResponseController(w).Flush()
			if err == nil {
				return
			}
		}
		t.ClientGone = time.Now()
	}
	created := t.Arrival.Unix()
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
	}
	for i := 1; i <= req.MaxTokens; i++ {
		if i > 1 {
			time.Sleep(s.cfg.PerToken)
		}
		if req.Stream {
			finish := "null"
			if i == req.MaxTokens {
				finish = `"length"`
			}
			write(fmt.Appendf(nil, `data: {"id":%q,"object":"chat.completion.chunk","created":%d,"model":%q,"choices":[{"index":0,"delta":{"content":"tok "},"finish_reason":%s}]}`+"\n\n",
				rid, created, req.Model, finish))
		}
	}
	if req.Stream {
		write([]byte("data: [DONE]\n\n"))
	} else {
		body := fmt.Appendf(nil, `{"id":%q,"object":"chat.completion","created":%d,"model":%q,"choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"length"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`,
			rid, created, req.Model, strings.Repeat("tok ", req.MaxTokens), prompt, req.MaxTokens, prompt+req.MaxTokens)
		w.Header().Set("Content-Type", "application/json")
		write(body)
	}
	t.End = time.Now()
	<-s.slots

	// vLLM's llm_request span (vllm/v1/engine/output_processor.py
	// do_tracing): started at arrival, float-second latencies.
	sec := func(a, b time.Time) float64 { return b.Sub(a).Seconds() }
	_, span := s.tr.Start(context.Background(), "llm_request",
		trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(t.Arrival))
	span.SetAttributes(
		attribute.Int("gen_ai.usage.prompt_tokens", prompt),
		attribute.Int("gen_ai.usage.completion_tokens", req.MaxTokens),
		attribute.String("gen_ai.request.id", rid),
		attribute.Float64("gen_ai.request.top_p", 1.0),
		attribute.Int("gen_ai.request.max_tokens", req.MaxTokens),
		attribute.Float64("gen_ai.request.temperature", 0.0),
		attribute.Int("gen_ai.request.n", 1),
		attribute.Float64("gen_ai.latency.time_in_queue", sec(t.Arrival, t.Scheduled)),
		attribute.Float64("gen_ai.latency.time_to_first_token", sec(t.Arrival, t.FirstToken)),
		attribute.Float64("gen_ai.latency.e2e", sec(t.Arrival, t.End)),
		attribute.Float64("gen_ai.latency.time_in_model_prefill", sec(t.Scheduled, t.FirstToken)),
		attribute.Float64("gen_ai.latency.time_in_model_decode", sec(t.FirstToken, t.End)),
		attribute.Float64("gen_ai.latency.time_in_model_inference", sec(t.Scheduled, t.End)),
		attribute.String("gen_ai.response.finish_reasons", `["length"]`),
	)
	span.End(trace.WithTimestamp(t.End))

	s.mu.Lock()
	s.truth[t.ID] = t
	s.mu.Unlock()
}

// Truth returns the server's record of each request, by request ID.
func (s *Server) Truth() map[string]ServerTruth {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]ServerTruth, len(s.truth))
	for k, v := range s.truth {
		out[k] = *v
	}
	return out
}

// Auth returns the auth endpoint's record of each call, by request ID.
func (s *Server) Auth() map[string]AuthTruth {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]AuthTruth, len(s.auth))
	for k, v := range s.auth {
		out[k] = *v
	}
	return out
}

// Drain waits (at most d) for the requests in flight, the ones whose
// clients left included, to finish generating.
func (s *Server) Drain(d time.Duration) error {
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-time.After(d):
		return fmt.Errorf("server: requests still running after %v", d)
	}
}

// Stop flushes the spans to the collector and closes the server.
func (s *Server) Stop(ctx context.Context) error {
	err := s.tp.Shutdown(ctx)
	s.srv.Close()
	if s.fsrv != nil {
		s.fsrv.Close()
	}
	return err
}
