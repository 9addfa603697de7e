package formats

import (
	"bytes"
	"regexp"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// vllm-log: the request lines of vLLM's text log (--enable-log-requests;
// older builds logged them unless --disable-log-requests), as written by
// vllm/logger.py in either of its prefixes, with or without ANSI colours:
//
//	INFO 01-15 10:00:00 logger.py:39] Received request …                        (≤ 0.7)
//	(APIServer pid=7) INFO 01-15 10:00:00 [logger.py:49] Received request …     (newer)
//
// The lines kept, each giving one row:
//
//	Received request ID: params: SamplingParams(…), lora_request: ….       (older: ": prompt: …, params: …")
//	Added request ID.                                                      (newer builds: the internal ID)
//	Generated response ID[ (streaming complete)]: output: …, output_token_ids: …, finish_reason: R
//	Finished request ID.                                                   (V0 only)
//	Request ID aborted. | Request ID failed (engine dead). | Request ID failed (bad request). | Request ID failed.
//	Aborted request(s) ID1,ID2.                                            (one row per ID)
//
// A row holds EngineRequestID (as logged), RequestID (mapped back, see
// vllmRequestID), FinishReason ("Generated response" lines; "abort" for
// aborts) and Error ("aborted", "failed (engine dead)", "failed (bad
// request)", "failed"), and Format "vllm-log". Output text, prompts and token
// IDs are never kept; token counts are not taken from the logged token ID
// lists either, because --max-log-len cuts those lists.
//
// These lines have local-time, year-less, one-second timestamps, so a row
// takes no time from its line, and no row has a duration. Only when the
// line came with a collector's full time (a docker or kubectl --timestamps,
// CRI or journalctl -o short-iso prefix: record.RowQueue.LineTime) does its
// row take that time as the instant its line stands for: arrival_time for
// "Received request", end_time for "Generated response", "Finished
// request" and the aborted and failed lines; "Added request" rows take
// none. The rows are annotations:
// the analysis must treat rows with format = 'vllm-log' as such, joining
// them to a request by request_id only to add a finish reason or an error,
// and never count them as requests, use them as the server row of a
// request, or put them into any latency figure.
//
// Every other line is decoded as zero rows, not rejected: banners, metrics
// lines, uvicorn access lines, tracebacks, streaming-delta "Generated" lines
// with no finish reason yet, and the DEBUG "Request ID details: prompt: …"
// line. Only a request line cut before its ID ends is rejected; those hold no
// user text (a cut "Generated response" line does hold output text, so it
// still gives its ID and no finish reason rather than being rejected into
// rejects.jsonl).
const formatVLLMLog = "vllm-log"

func init() {
	record.Register(&record.Format{
		Tier:      record.Server,
		Name:      formatVLLMLog,
		Sniff:     sniffVLLMLog,
		NewParser: func() record.LineParser[record.ServerRow] { return &vllmLog{} },
		Untimed:   true, // annotations: no time of their own
		// The collector's time of the line, when it has one.
		CollectorTime: "arrival_time, end_time",
		NoRowsCause:   vllmLogNoRows,
	})
}

// uvicornAccess matches the access line uvicorn writes for each HTTP
// request to vLLM's API server, with vLLM's "(APIServer pid=N) " before it
// in newer builds: `INFO:     10.0.0.17:51408 - "POST /v1/chat/completions
// HTTP/1.1" 200 OK`.
var uvicornAccess = regexp.MustCompile(`^(?:\([^()]* pid=\d+\) )?INFO: +\S+ - "[A-Z]+ \S+ HTTP/[0-9.]+" \d{3}\b`)

// vllmLogNoRows tells a vLLM log that has none of the request lines
// vllm-log reads (the file made no row and rejected no line): vLLM writes
// those only when asked. The line shown is the first of uvicorn's access
// lines, which users take for request lines, else the first of vLLM's own.
func vllmLogNoRows(h record.Head) (int64, string, bool) {
	first, access := -1, false
	for i, l := range h.Lines {
		if bytes.IndexByte(l, 0x1b) >= 0 {
			l = ansiEscape.ReplaceAll(l, nil)
		}
		if uvicornAccess.Match(l) {
			first, access = i, true
			break
		}
		if _, _, ok := vllmLogMessage(l); ok && first < 0 {
			first = i
		}
	}
	if first < 0 {
		return 0, "", false
	}
	const why = "no line is one of vLLM's request lines (Received request, Generated response, aborted…), " +
		"which it writes only when started with --enable-log-requests (older builds: unless --disable-log-requests)"
	if access {
		return h.Nums[first], "is a uvicorn access line, and " + why + "; access lines have no request ID to read", true
	}
	return h.Nums[first], "is a line of vLLM's log, and " + why, true
}

// vllmLogPrefix matches logger.py's prefix once ANSI colour codes are
// removed: an optional "(Process pid=N) " decoration, the level, the
// "%m-%d %H:%M:%S" time, "[file:line]" (or "file:line]" before 0.8), and
// captures the file:line bracket style (group 1) and the message (group 2).
var vllmLogPrefix = regexp.MustCompile(`^(?:\([^()]* pid=\d+\) )?(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? (\[?)[\w.\-]+:\d+\] (.*)$`)

func sniffVLLMLog(first []byte) bool {
	_, _, ok := vllmLogMessage(first)
	return ok
}

// vllmLogMessage returns the message of a vLLM log line and whether its
// prefix is the bracketed (newer) one.
func vllmLogMessage(line []byte) (msg []byte, bracketed, ok bool) {
	line = stripANSI(line)
	m := vllmLogPrefix.FindSubmatchIndex(line)
	if m == nil {
		return nil, false, false
	}
	return line[m[4]:m[5]], m[3] > m[2], true
}

type vllmLog struct{ labels scan.Labels }

var (
	errCutRequestLine = logLineError("vLLM request line cut before its request ID ends (truncated line?)")
	errEmptyRequestID = record.FieldErrorf("request id", record.ErrMissingField, "empty in a vLLM request line")
)

func (p *vllmLog) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	// Cheap test before the regular expression: request lines say
	// "request", "Request" or "response".
	if !bytes.Contains(line, []byte("equest")) && !bytes.Contains(line, []byte("response")) {
		return nil
	}
	msg, bracketed, ok := vllmLogMessage(line)
	if !ok {
		return nil
	}
	msg = bytes.TrimRight(msg, " \r")
	// row makes the row of a request line, which takes the line's
	// collector time as its arrival or end (at), or none (nil).
	row := func(id []byte, internal bool, at func(*record.ServerRow) *int64) (*record.ServerRow, error) {
		if len(id) == 0 {
			return nil, errEmptyRequestID
		}
		r := out.Next()
		r.Format = formatVLLMLog
		r.EngineRequestID = string(id)
		r.RequestID = vllmRequestID(r.EngineRequestID, internal)
		if at != nil {
			*at(r) = out.LineTime
		}
		return r, nil
	}
	switch {
	case cutPrefix(&msg, "Received request "):
		i := bytes.Index(msg, []byte(": params: "))
		if j := bytes.Index(msg, []byte(": prompt: ")); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			return errCutRequestLine
		}
		_, err := row(msg[:i], false, arrivalOf)
		return err

	case cutPrefix(&msg, "Added request "):
		// Builds with the bracketed prefix may log the internal ID here;
		// the older ones never do.
		if !bytes.HasSuffix(msg, []byte(".")) {
			return errCutRequestLine
		}
		// The engine took the request: neither its arrival nor its end.
		_, err := row(msg[:len(msg)-1], bracketed, nil)
		return err

	case cutPrefix(&msg, "Finished request "):
		if !bytes.HasSuffix(msg, []byte(".")) {
			return errCutRequestLine
		}
		_, err := row(msg[:len(msg)-1], false, endOf)
		return err

	case cutPrefix(&msg, "Generated response "):
		i := bytes.Index(msg, []byte(": output: "))
		if i < 0 {
			return errCutRequestLine
		}
		id := msg[:i]
		delta := cutSuffix(&id, " (streaming delta)")
		cutSuffix(&id, " (streaming complete)")
		reason := ""
		if j := bytes.LastIndex(msg, []byte(", finish_reason: ")); j >= 0 {
			if s := msg[j+len(", finish_reason: "):]; vllmWord(s) && string(s) != "None" {
				reason = p.labels.Intern(s)
			}
		}
		if delta && reason == "" {
			return nil // one of many streamed chunks: nothing new about the request
		}
		r, err := row(id, false, endOf)
		if err == nil {
			r.FinishReason = reason
		}
		return err

	case cutPrefix(&msg, "Aborted request(s) "), cutPrefix(&msg, "Aborted request "):
		if !bytes.HasSuffix(msg, []byte(".")) {
			return errCutRequestLine
		}
		for _, id := range bytes.Split(msg[:len(msg)-1], []byte(",")) {
			r, err := row(bytes.TrimSpace(id), false, endOf)
			if err != nil {
				return err
			}
			r.FinishReason, r.Error = "abort", "aborted"
		}
		return nil

	case cutPrefix(&msg, "Request "):
		for _, end := range [...]struct{ suffix, err string }{
			{" aborted.", "aborted"},
			{" failed (engine dead).", "failed (engine dead)"},
			{" failed (bad request).", "failed (bad request)"},
			{" failed.", "failed"},
		} {
			if id, ok := bytes.CutSuffix(msg, []byte(end.suffix)); ok {
				r, err := row(id, false, endOf)
				if err != nil {
					return err
				}
				r.Error = end.err
				if end.err == "aborted" {
					r.FinishReason = "abort"
				}
				return nil
			}
		}
	}
	return nil
}

func arrivalOf(r *record.ServerRow) *int64 { return &r.Arrival }
func endOf(r *record.ServerRow) *int64     { return &r.End }

// vllmWord: a finish reason is a short identifier (stop, length, abort,
// error, None); anything else at the end of the line is not one.
func vllmWord(b []byte) bool {
	if len(b) == 0 || len(b) > 32 {
		return false
	}
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
