package formats

import (
	"bytes"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Two SGLang server formats carry the same per-request "meta_info":
//
// sglang-metrics: the JSON lines of --export-metrics-to-file
// (sglang-request-metrics-YYYYMMDD_HH.log), one per finished request:
//
//	{"request_parameters": "<the request as a JSON string>", "id": "5b1f…", "finish_reason": {"type": "length", "length": 128},
//	 "prompt_tokens": 512, "completion_tokens": 128, "cached_tokens": 0, "e2e_latency": 2.6398,
//	 "request_received_ts": 1796032800.0, "queue_time": 0.3512, "forward_entry_time": 1796032800.3654,
//	 "prefill_finished_time": 1796032800.5311, "inference_time": 2.2744, "request_finished_ts": 1796032802.6398,
//	 "response_sent_to_client_ts": 1796032802.6405}
//
// sglang-log: the lines of --log-requests --log-requests-format json:
//
//	{"timestamp": "2026-11-30T10:00:02.640561", "event": "request.finished", "rid": "5b1f…", "obj": {…}, "out": {"meta_info": {…}}}
//
// Only request.finished lines give a row, from out.meta_info alone; other
// events give zero rows. Their "timestamp" is local time without a zone and
// is not used. "request_parameters", "obj" and the rest of "out" hold the
// prompt and the completion: they are skipped unread.
//
// The meta_info keys vary by version and flags; a row takes what is there.
// The *_ts and *_time instants are wall-clock epoch seconds (SGLang converts
// its perf_counter readings); queue_time, e2e_latency and inference_time are
// seconds.
//
//	RequestID, EngineRequestID  id (the rid), else the log line's rid
//	Arrival      request_received_ts
//	End          request_finished_ts, else response_sent_to_client_ts
//	QueueNS      queue_time (wait queue → forward entry; with --enable-metrics)
//	Scheduled    forward_entry_time, else Arrival + queue_time (derived)
//	FirstToken   prefill_finished_time
//	TTFTNS       prefill_finished_time − request_received_ts
//	PrefillNS    prefill_finished_time − forward_entry_time
//	DecodeNS     End − prefill_finished_time
//	E2ENS        e2e_latency
//	InferenceNS  inference_time (forward entry → finished)
//	PromptTokens, OutputTokens  prompt_tokens, completion_tokens
//	FinishReason finish_reason.type (or a plain string); Status its status_code
//
// No model (only a weight_version) and no replica. A queue_time that is
// negative while forward_entry_time is absent is the artefact of a request
// that never reached the forward pass and is left out; any other negative
// duration rejects the line.

const (
	formatSGLangMetrics = "sglang-metrics"
	formatSGLangLog     = "sglang-log"
)

func init() {
	record.RegisterLine(record.Server, formatSGLangMetrics, sniffSGLangMetrics, func() record.LineParser[record.ServerRow] { return &sglangParser{} })
	record.RegisterLine(record.Server, formatSGLangLog, sniffSGLangLog, func() record.LineParser[record.ServerRow] { return &sglangParser{log: true} })
}

// The sniffers look at bytes: the first line is cut at 64 KiB and these
// lines hold whole prompts. Python's json.dumps writes ": " and ", ".
func sniffSGLangMetrics(line []byte) bool {
	line = bytes.TrimSpace(line)
	return bytes.HasPrefix(line, []byte(`{"request_parameters":`))
}

func sniffSGLangLog(line []byte) bool {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte(`{"timestamp":`)) {
		return false
	}
	head := line[:min(len(line), 200)]
	return bytes.Contains(head, []byte(`"event": "request.`)) || bytes.Contains(head, []byte(`"event":"request.`))
}

type sglangParser struct {
	log    bool
	labels scan.Labels
}

// sglangMeta collects the meta_info members a row uses.
type sglangMeta struct {
	id                                             string
	received, finished, sent, forward, prefillDone int64
	e2e, queue, inference                          int64
	haveE2E, haveQueue, haveInference              bool
	finish                                         string
	status                                         int32
	prompt, completion                             *int32
}

func (p *sglangParser) member(m *sglangMeta, key []byte, v scan.Value) error {
	var err error
	switch string(key) {
	case "id":
		return scan.Text("id", v, &m.id)
	case "finish_reason":
		return p.finishReason(m, v)
	case "prompt_tokens":
		return scan.Count32("prompt_tokens", v, &m.prompt)
	case "completion_tokens":
		return scan.Count32("completion_tokens", v, &m.completion)
	case "e2e_latency":
		m.e2e, m.haveE2E, err = scan.Seconds("e2e_latency", v)
	case "queue_time":
		m.queue, m.haveQueue, err = scan.Seconds("queue_time", v)
	case "inference_time":
		m.inference, m.haveInference, err = scan.Seconds("inference_time", v)
	case "request_received_ts":
		return scan.Timestamp("request_received_ts", v, &m.received)
	case "request_finished_ts":
		return scan.Timestamp("request_finished_ts", v, &m.finished)
	case "response_sent_to_client_ts":
		return scan.Timestamp("response_sent_to_client_ts", v, &m.sent)
	case "forward_entry_time":
		return scan.Timestamp("forward_entry_time", v, &m.forward)
	case "prefill_finished_time":
		return scan.Timestamp("prefill_finished_time", v, &m.prefillDone)
	}
	return err
}

func (p *sglangParser) finishReason(m *sglangMeta, v scan.Value) error {
	switch v.Kind {
	case scan.ObjectKind:
		return scan.Object(v.Raw, func(k []byte, esc bool, v scan.Value) error {
			switch string(scan.MemberKey(k, esc)) {
			case "type":
				return p.labels.Label("finish_reason.type", v, &m.finish)
			case "status_code":
				return scan.HTTPStatus("finish_reason.status_code", v, &m.status)
			}
			return nil // "message" and "matched" may quote the request: not read
		})
	case scan.String:
		return p.labels.Label("finish_reason", v, &m.finish)
	case scan.Null:
		return nil
	}
	return record.FieldErrorf("finish_reason", record.ErrBadValue, "want an object or a string, got %s", scan.KindName(v.Kind))
}

func (p *sglangParser) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	var m sglangMeta
	if !p.log {
		err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
			return p.member(&m, scan.MemberKey(k, esc), v)
		})
		if err != nil {
			return err
		}
		return p.row(&m, formatSGLangMetrics, out)
	}
	var event []byte
	var rid string
	var outV scan.Value
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "event":
			b, _, err := scan.TextBytes("event", v)
			event = b
			return err
		case "rid":
			return scan.Text("rid", v, &rid)
		case "out":
			outV = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	if string(event) != "request.finished" {
		return nil
	}
	return p.finished(rid, outV, formatSGLangLog, out)
}

// finished gives the row of a finished request from its "out" (which holds
// meta_info) and the rid it was logged with.
func (p *sglangParser) finished(rid string, outV scan.Value, format string, out *record.RowQueue[record.ServerRow]) error {
	var m sglangMeta
	if outV.Kind != scan.ObjectKind {
		return record.Missing("out")
	}
	var meta scan.Value
	err := scan.Object(outV.Raw, func(k []byte, esc bool, v scan.Value) error {
		if string(scan.MemberKey(k, esc)) == "meta_info" {
			meta = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	if meta.Kind != scan.ObjectKind {
		return record.Missing("out.meta_info")
	}
	err = scan.Object(meta.Raw, func(k []byte, esc bool, v scan.Value) error {
		return p.member(&m, scan.MemberKey(k, esc), v)
	})
	if err != nil {
		return err
	}
	if m.id == "" {
		m.id = rid
	}
	return p.row(&m, format, out)
}

func (p *sglangParser) row(m *sglangMeta, format string, out *record.RowQueue[record.ServerRow]) error {
	if m.id == "" {
		return record.Missing("id")
	}
	r := out.Next()
	r.Format = format
	r.RequestID, r.EngineRequestID = m.id, m.id
	r.Arrival = m.received
	r.End = m.finished
	if r.End == 0 {
		r.End = m.sent
	}
	r.FirstToken = m.prefillDone
	r.PromptTokens, r.OutputTokens = m.prompt, m.completion
	r.FinishReason, r.Status = m.finish, m.status
	var err error
	if m.haveE2E {
		if r.E2ENS, err = scan.Between("e2e_latency", 0, m.e2e); err != nil {
			return err
		}
	}
	if m.haveInference {
		if r.InferenceNS, err = scan.Between("inference_time", 0, m.inference); err != nil {
			return err
		}
	}
	if m.haveQueue && !(m.queue < 0 && m.forward == 0) {
		if r.QueueNS, err = scan.Between("queue_time", 0, m.queue); err != nil {
			return err
		}
	}
	switch {
	case m.forward != 0:
		r.Scheduled = m.forward
	case r.Arrival != 0 && r.QueueNS != nil && r.Arrival+*r.QueueNS >= r.Arrival:
		r.Scheduled = r.Arrival + *r.QueueNS
	}
	if m.prefillDone != 0 {
		if m.received != 0 {
			if r.TTFTNS, err = scan.Between("prefill_finished_time − request_received_ts", m.received, m.prefillDone); err != nil {
				return err
			}
		}
		if m.forward != 0 {
			if r.PrefillNS, err = scan.Between("prefill_finished_time − forward_entry_time", m.forward, m.prefillDone); err != nil {
				return err
			}
		}
		if r.End != 0 {
			if r.DecodeNS, err = scan.Between("end − prefill_finished_time", m.prefillDone, r.End); err != nil {
				return err
			}
		}
	}
	return nil
}
