package formats

import (
	"bytes"
	"strconv"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Two Ollama server formats. Ollama logs no request ID at all.
//
// ollama-json: the final object of /api/generate or /api/chat (the whole
// non-streamed response, or the last line of a stream, "done": true), one
// per line, as a client or a proxy saved it (api/types.go, server/routes.go):
//
//	{"model":"llama3.2","created_at":"2026-11-30T10:00:02.639812Z","response":"…","done":true,
//	 "done_reason":"length","context":[…],"total_duration":2639712331,"load_duration":364310871,
//	 "prompt_eval_count":512,"prompt_eval_duration":172100000,"eval_count":128,"eval_duration":2103300000}
//
// The durations are Go time.Duration values, integer ns, measured on the
// server from the handler's start (checkpointStart). A row has:
//
//	End          created_at (RFC 3339, the server's wall clock when it built the final object)
//	E2ENS        total_duration (handler start → final object)
//	Arrival      End − total_duration (derived, as for TGI)
//	LoadNS       load_duration: handler start → a runner is ready (scheduleRunner returned), i.e.
//	             waiting for a runner (Ollama's scheduler queue) plus loading the model when it
//	             was not resident: a cold start when large. It cannot be split into queue and load,
//	             so QueueNS stays NULL.
//	PrefillNS    prompt_eval_duration; PromptTokens prompt_eval_count (tokens evaluated: a cached
//	             prefix is not counted)
//	DecodeNS     eval_duration; OutputTokens eval_count
//	Model, FinishReason  model, done_reason ("stop", "length")
//
// What is left of total_duration after load, prefill and decode is the
// server's own work (templating, tokenization, sampling between tokens
// outside eval). Ollama measures no TTFT and no queue on its own: TTFTNS,
// QueueNS, Scheduled and FirstToken stay NULL (load + prefill is close to a
// TTFT but not one). Objects with "done": false (stream chunks), the answers
// to a request that only loads or unloads a model (done_reason "load",
// "unload", or, from releases before done_reason, an object with no
// duration and no count: no prompt was run) and error objects ({"error": "…"},
// which carry no time) give zero rows; "response",
// "message", "thinking" and "context" hold the completion and are skipped
// unread. The load, prompt eval and eval durations are kept as measured,
// even where they add up to more than total_duration (the analysis flags
// a negative server overhead as an anomaly).
//
// ollama-gin: the access log line gin.Default() writes for every HTTP
// request to stderr (gin's LoggerWithFormatter default):
//
//	[GIN] 2026/11/30 - 10:00:02 | 200 |  2.639712331s |       127.0.0.1 | POST     "/api/generate"
//
// For the inference routes (/api/generate, /api/chat, /api/embed,
// /api/embeddings, /v1/chat/completions, /v1/completions, /v1/embeddings;
// a query string is ignored) a row has Status and E2ENS = the latency (a Go
// duration string; gin truncates one over a minute to whole seconds), from
// request received to handler done. Every other path (/, /api/tags,
// /api/ps, /api/pull…) and every other line gives zero rows. The time is
// local time without a zone, to the second: it names no instant, so the
// row takes no time from it (End stays NULL). gin writes the line when the
// handler is done, so a line that came with a collector's full time
// (record.RowQueue.LineTime) gives its row that time as End. With no ID
// the row joins nothing: it is counted, never a request's server record.
// The client address is not kept.

const (
	formatOllamaJSON = "ollama-json"
	formatOllamaGin  = "ollama-gin"
)

func init() {
	record.RegisterLine(record.Server, formatOllamaJSON, sniffOllamaJSON, func() record.LineParser[record.ServerRow] { return &ollamaJSON{} })
	record.Register(&record.Format{
		Tier:          record.Server,
		Name:          formatOllamaGin,
		Sniff:         sniffOllamaGin,
		NewParser:     func() record.LineParser[record.ServerRow] { return &ollamaGin{} },
		NoRowsCause:   ollamaGinNoRows,
		CollectorTime: "end_time",
	})
}

// ollamaGinNoRows tells a GIN access log whose first lines are all of
// routes ollama-gin makes no row of (a health check's HEAD / and GET
// /api/tags every few seconds fill a log between requests): the first of
// them. It says nothing when one of the lines is an inference request or
// a line the parser rejects.
func ollamaGinNoRows(h record.Head) (int64, string, bool) {
	var q record.RowQueue[record.ServerRow]
	var p ollamaGin
	first := -1
	for i, l := range h.Lines {
		if !sniffOllamaGin(stripANSI(l)) {
			continue
		}
		if err := p.ParseLine(l, &q); err != nil || len(q.Rows) > 0 {
			return 0, "", false
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return 0, "", false
	}
	return h.Nums[first], "is a GIN access line of a route other than Ollama's inference routes, as are the other GIN lines " +
		"of the file's first lines: ollama-gin makes rows of /api/generate, /api/chat, /api/embed, /api/embeddings and " +
		"/v1/chat/completions, /v1/completions, /v1/embeddings only, not of health checks (HEAD /) or model listings " +
		"(GET /api/tags)", true
}

// sniffOllamaJSON accepts an object whose first members are model and
// created_at, in the order Ollama's response types declare them.
func sniffOllamaJSON(line []byte) bool {
	n, ok := 0, false
	lgSniffMembers(line, func(key []byte, _ scan.Value, _ bool) bool {
		switch {
		case n == 0 && string(key) == "model":
		case n == 1 && string(key) == "created_at":
			ok = true
		default:
			return false
		}
		n++
		return !ok
	})
	return ok
}

func sniffOllamaGin(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimSpace(line), []byte("[GIN] "))
}

type ollamaJSON struct{ labels scan.Labels }

func (p *ollamaJSON) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	var created, total, load, promptDur, evalDur scan.Value
	var done bool
	var model, reason string
	var prompt, evalN *int32
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "model":
			return p.labels.Label("model", v, &model)
		case "created_at":
			created = v
		case "done":
			return scan.Boolean("done", v, func(b bool) { done = b })
		case "done_reason":
			return p.labels.Label("done_reason", v, &reason)
		case "total_duration":
			total = v
		case "load_duration":
			load = v
		case "prompt_eval_count":
			return scan.Count32("prompt_eval_count", v, &prompt)
		case "prompt_eval_duration":
			promptDur = v
		case "eval_count":
			return scan.Count32("eval_count", v, &evalN)
		case "eval_duration":
			evalDur = v
		}
		return nil
	})
	if err != nil || !done || reason == "load" || reason == "unload" {
		return err
	}
	if reason == "" && created.Kind != 0 && total.Kind == 0 && load.Kind == 0 && promptDur.Kind == 0 &&
		evalDur.Kind == 0 && prompt == nil && evalN == nil {
		// The answer to a load or unload request from an Ollama that
		// did not yet write done_reason (docs/api.md's "Load a model"
		// example): a model, a time and "done", nothing measured.
		return nil
	}
	r := out.Next()
	r.Format = formatOllamaJSON
	r.Model, r.FinishReason = model, reason
	r.PromptTokens, r.OutputTokens = prompt, evalN
	if created.Kind == 0 {
		return record.Missing("created_at")
	}
	if err := scan.Timestamp("created_at", created, &r.End); err != nil {
		return err
	}
	if r.End == 0 {
		return record.Missing("created_at")
	}
	if r.E2ENS, err = ollamaNS("total_duration", total); err != nil {
		return err
	}
	if r.E2ENS == nil {
		return record.Missing("total_duration")
	}
	r.Arrival = r.End - *r.E2ENS
	if r.Arrival < scan.MinEpochSec*1e9 {
		return record.FieldErrorf("total_duration", record.ErrBadValue, "%d ns is longer than the time since 2000", *r.E2ENS)
	}
	if r.LoadNS, err = ollamaNS("load_duration", load); err != nil {
		return err
	}
	if r.PrefillNS, err = ollamaNS("prompt_eval_duration", promptDur); err != nil {
		return err
	}
	if r.DecodeNS, err = ollamaNS("eval_duration", evalDur); err != nil {
		return err
	}
	return nil
}

// ollamaNS reads a Go time.Duration member (integer ns); absent or null is nil.
func ollamaNS(field string, v scan.Value) (*int64, error) {
	if v.Kind == 0 {
		return nil, nil
	}
	ns, ok, err := scan.Integer(field, v, 0, 1<<63-1)
	if err != nil || !ok {
		return nil, err
	}
	return record.NSPtr(ns), nil
}

type ollamaGin struct{}

// ollamaInferencePath reports whether a request path (without its query)
// runs a model.
func ollamaInferencePath(path []byte) bool {
	switch string(path) {
	case "/api/generate", "/api/chat", "/api/embed", "/api/embeddings",
		"/v1/chat/completions", "/v1/completions", "/v1/embeddings":
		return true
	}
	return false
}

func (p *ollamaGin) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	line = bytes.TrimRight(stripANSI(line), " \r")
	if !cutPrefix(&line, "[GIN] ") {
		return nil
	}
	// time | status | latency | client | method "path"
	var f [5][]byte
	for i := range 4 {
		k := bytes.Index(line, []byte(" |"))
		if k < 0 {
			// gin writes "[GIN] " before access lines only (its debug
			// output is "[GIN-debug] "): this one is cut short or not in
			// gin's default format.
			return logLineError(`GIN access line cut short, or not in gin's default format (time | status | latency | client | method and quoted path)`)
		}
		f[i], line = bytes.TrimSpace(line[:k]), line[k+2:]
	}
	f[4] = bytes.TrimSpace(line)
	sp := bytes.IndexByte(f[4], ' ')
	if sp < 0 {
		return logLineError("GIN access line without a method and path")
	}
	// The path is Go-quoted; gin appends the handler's error messages.
	quoted, err := strconv.QuotedPrefix(string(bytes.TrimSpace(f[4][sp+1:])))
	var path string
	if err == nil {
		path, err = strconv.Unquote(quoted)
	}
	if err != nil {
		return logLineError("GIN access line: the path is not a quoted string (truncated line?)")
	}
	if q := bytes.IndexByte([]byte(path), '?'); q >= 0 {
		path = path[:q]
	}
	if !ollamaInferencePath([]byte(path)) {
		return nil
	}
	status, err := strconv.Atoi(string(f[1]))
	if err != nil || status < 100 || status > 999 {
		return record.FieldErrorf("status", record.ErrBadValue, "%q: not an HTTP status", f[1])
	}
	d, err := time.ParseDuration(string(f[2]))
	if err != nil || d < 0 {
		return record.FieldErrorf("latency", record.ErrBadValue, "%q: not a Go duration (like 2.639712331s, 351.2048ms, 1m5s)", f[2])
	}
	r := out.Next()
	r.Format = formatOllamaGin
	r.Status = int32(status)
	r.E2ENS = record.NSPtr(int64(d))
	r.End = out.LineTime // the collector's, if any: the line's own has no zone
	return nil
}
