package teststack

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Request is one request a client sends.
type Request struct {
	ID string
	// At is when to send it, after the load starts (open loop: a request
	// does not wait for the one before).
	At     time.Duration
	Stream bool
	Tokens int
	// AbortAfter > 0: the client closes the connection once it has read
	// that many streamed tokens. AbortAt > 0: it closes the connection
	// that long after sending if the response has not ended by then.
	AbortAfter int
	AbortAt    time.Duration
	// Base overrides the load's base URL for this request.
	Base string
	// Prefill > 0 asks the server for that prefill time instead of its
	// own (the X-Stack-Prefill-Ms header, a knob of this test server).
	Prefill time.Duration
}

// ClientTruth is what the client measured, on its host's clock (wall
// instants; Latency and TTFT on the monotonic clock, as AIPerf measures).
type ClientTruth struct {
	ID             string
	Start, End     time.Time
	FirstChunk     time.Time // zero when no token came
	Latency, TTFT  time.Duration
	Tokens, Status int
	Aborted        bool
	Err            string
	Stream         bool
	PromptTokens   int
}

// LoadConfig is one run of the load generator.
type LoadConfig struct {
	// Base is the gateway's (or the delaying proxy's) base URL.
	Base     string
	Requests []Request
	// Timeout bounds the whole load.
	Timeout time.Duration
}

var prompt = []byte(`{"role":"user","content":"` + strings.Repeat("word ", 40) + `"}`)

// RunLoad sends every request and returns what the client measured, in
// the order of Requests.
func RunLoad(ctx context.Context, cfg LoadConfig) []ClientTruth {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	tr := &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	out := make([]ClientTruth, len(cfg.Requests))
	var wg sync.WaitGroup
	t0 := time.Now()
	for i, r := range cfg.Requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := time.Until(t0.Add(r.At)); d > 0 {
				select {
				case <-time.After(d):
				case <-ctx.Done():
				}
			}
			base := cfg.Base
			if r.Base != "" {
				base = r.Base
			}
			out[i] = send(ctx, hc, base, r)
		}()
	}
	wg.Wait()
	return out
}

func send(ctx context.Context, hc *http.Client, base string, r Request) ClientTruth {
	ct := ClientTruth{ID: r.ID, Stream: r.Stream, PromptTokens: len(prompt) / 4}
	body := fmt.Appendf(nil, `{"model":"stack-8b","messages":[%s],"stream":%t,"max_tokens":%d}`, prompt, r.Stream, r.Tokens)
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var timer *time.Timer
	if r.AbortAt > 0 {
		timer = time.AfterFunc(r.AbortAt, cancel)
		defer timer.Stop()
	}
	// aborted: the client's own cancel closed the connection.
	aborted := func(err error) bool {
		return r.AbortAt > 0 && rctx.Err() != nil && ctx.Err() == nil && err != nil
	}
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, base+"/v1/chat/completions", bytes.NewReader(body))
	if err != nil {
		ct.Err = err.Error()
		return ct
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", r.ID)
	if r.Prefill > 0 {
		req.Header.Set("X-Stack-Prefill-Ms", strconv.FormatInt(r.Prefill.Milliseconds(), 10))
	}
	ct.Start = time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		ct.End = time.Now()
		ct.Latency = ct.End.Sub(ct.Start)
		if ct.Aborted = aborted(err); !ct.Aborted {
			ct.Err = err.Error()
		}
		return ct
	}
	defer resp.Body.Close()
	ct.Status = resp.StatusCode
	if !r.Stream {
		var cr struct {
			Usage struct {
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		b, err := io.ReadAll(resp.Body)
		ct.End = time.Now()
		ct.Latency = ct.End.Sub(ct.Start)
		if err != nil {
			ct.Err = err.Error()
		} else if json.Unmarshal(b, &cr) == nil {
			ct.Tokens = cr.Usage.CompletionTokens
		}
		return ct
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadBytes('\n')
		if bytes.HasPrefix(line, []byte("data: {")) {
			ct.Tokens++
			if ct.Tokens == 1 {
				ct.FirstChunk = time.Now()
				ct.TTFT = ct.FirstChunk.Sub(ct.Start)
			}
			if r.AbortAfter > 0 && ct.Tokens >= r.AbortAfter {
				cancel() // closes the connection mid-stream
				ct.End = time.Now()
				ct.Latency = ct.End.Sub(ct.Start)
				ct.Aborted = true
				return ct
			}
		}
		if err != nil {
			ct.End = time.Now()
			ct.Latency = ct.End.Sub(ct.Start)
			if ct.Aborted = aborted(err) && err != io.EOF; !ct.Aborted && err != io.EOF {
				ct.Err = err.Error()
			}
			return ct
		}
	}
}

// WriteAIPerf writes the client's records as AIPerf's profile_export.jsonl
// does (MetricRecordInfo: metadata, metrics, error), in end order as
// AIPerf's records processor writes them. A request the client cancelled
// is written as AIPerf writes one: was_cancelled, cancellation_time_ns =
// request_end_ns, only error_isl among the metrics, error code 499
// RequestCancellationError.
func WriteAIPerf(path string, recs []ClientTruth) error {
	recs = append([]ClientTruth(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].End.Before(recs[j].End) })
	var b bytes.Buffer
	msf := func(d time.Duration) metric { return metric{float64(d.Nanoseconds()) / 1e6, "ms"} }
	for i, c := range recs {
		if c.Start.IsZero() {
			continue // never sent (the load timed out first)
		}
		md := aiperfMeta{SessionNum: i, XRequestID: c.ID, XCorrelationID: c.ID + "-corr",
			ConversationID: c.ID + "-conv", RequestStartNS: c.Start.UnixNano(), RequestEndNS: c.End.UnixNano(),
			WorkerID: "worker_0", RecordProcessorID: "record_processor_0", BenchmarkPhase: "profiling",
			WasCancelled: c.Aborted}
		metrics := map[string]metric{}
		var errObj any
		switch {
		case c.Aborted:
			end := c.End.UnixNano()
			md.CancellationTimeNS = &end
			metrics["error_isl"] = metric{c.PromptTokens, "tokens"}
			errObj = map[string]any{"code": 499, "type": "RequestCancellationError",
				"message": fmt.Sprintf("Request was cancelled after %.3f seconds", c.Latency.Seconds())}
		case c.Err != "" || c.Status != http.StatusOK:
			metrics["error_isl"] = metric{c.PromptTokens, "tokens"}
			errObj = map[string]any{"code": c.Status, "type": "HTTPError", "message": "request failed"}
		default:
			metrics["input_sequence_length"] = metric{c.PromptTokens, "tokens"}
			metrics["request_latency"] = msf(c.Latency)
			metrics["output_sequence_length"] = metric{c.Tokens, "tokens"}
			metrics["output_token_count"] = metric{c.Tokens, "tokens"}
			if c.Stream && !c.FirstChunk.IsZero() {
				metrics["time_to_first_token"] = msf(c.TTFT)
			}
		}
		line, err := json.Marshal(aiperfRecord{md, metrics, errObj})
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

type metric struct {
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

// aiperfMeta is AIPerf's MetricRecordMetadata, in its field order.
type aiperfMeta struct {
	SessionNum         int    `json:"session_num"`
	XRequestID         string `json:"x_request_id"`
	XCorrelationID     string `json:"x_correlation_id"`
	ConversationID     string `json:"conversation_id"`
	TurnIndex          int    `json:"turn_index"`
	RequestStartNS     int64  `json:"request_start_ns"`
	RequestAckNS       *int64 `json:"request_ack_ns"`
	RequestEndNS       int64  `json:"request_end_ns"`
	WorkerID           string `json:"worker_id"`
	RecordProcessorID  string `json:"record_processor_id"`
	BenchmarkPhase     string `json:"benchmark_phase"`
	WasCancelled       bool   `json:"was_cancelled"`
	CancellationTimeNS *int64 `json:"cancellation_time_ns"`
}

type aiperfRecord struct {
	Metadata aiperfMeta        `json:"metadata"`
	Metrics  map[string]metric `json:"metrics"`
	Error    any               `json:"error"`
}
