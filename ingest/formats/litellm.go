package formats

import (
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// LiteLLM proxy logs, in the two shapes users export:
//
//   - the StandardLoggingPayload its logging callbacks receive (float epoch
//     seconds): {"id":"chatcmpl-…","litellm_call_id":"…","trace_id":"…",
//     "startTime":1768471200.0061,"completionStartTime":…,"endTime":…,
//     "model":"hosted_vllm/…","model_group":"llama-3.1-8b","api_base":"http://10.1.4.23:8000/v1",
//     "prompt_tokens":512,"completion_tokens":256,"stream":true,"status":"success","error_str":null,
//     "hidden_params":{"litellm_overhead_time_ms":3.9},"messages":[…],"response":{…}}
//   - rows of the LiteLLM_SpendLogs table (ISO times with an offset):
//     {"request_id":"chatcmpl-…","startTime":"2026-01-15T10:00:00.006100+00:00",
//     "completionStartTime":"…","endTime":"…","model":"…","api_base":"…","status":"success",…}
//
// as JSON lines ("litellm") or as one JSON document, an object or an array
// of objects, possibly pretty-printed ("litellm-json").
//
// LiteLLM times the call to the model provider: startTime is taken when the
// call object starts (after the proxy's auth and routing), completionStartTime
// when the first chunk came back, endTime when the response was complete. So
// on the proxy's clock:
//
//	UpstreamStart     = startTime
//	UpstreamFirstByte = completionStartTime
//	UpstreamEnd       = endTime
//	Start             = startTime − hidden_params.litellm_overhead_time_ms (when logged)
//	End               = endTime
//
// Without the overhead, Start is left empty: LiteLLM does not log when the
// request reached the proxy. The provider response id ("chatcmpl-<id>") is
// what vLLM built from the X-Request-Id it received, so RequestID is that id
// with vLLM's "chatcmpl-"/"cmpl-" prefix and a cache hit's "_cache_hit…"
// suffix removed; TraceID is LiteLLM's trace_id (one per request, across
// retries and fallbacks). Message and response text are never read.
const (
	formatLiteLLM     = "litellm"
	formatLiteLLMJSON = "litellm-json"
)

func init() {
	newParser := func() record.LineParser[record.GatewayRow] { return &liteLLMParser{} }
	record.RegisterLine(record.Gateway, formatLiteLLM, sniffLiteLLM, newParser)
	// A pretty-printed document shows nothing telling on its first line, so
	// litellm-json is never sniffed: the user names it.
	record.RegisterDoc(record.Gateway, formatLiteLLMJSON, nil, record.JSONRecords(func() record.LineParser[record.GatewayRow] {
		return &liteLLMParser{format: formatLiteLLMJSON}
	}))
}

func sniffLiteLLM(line []byte) bool {
	var start, end, marker bool
	err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "startTime":
			start = true
		case "endTime":
			end = true
		case "litellm_call_id", "call_type", "model_group", "api_base":
			marker = true
		}
		return nil
	})
	return err == nil && start && end && marker
}

type liteLLMParser struct {
	labels scan.Labels
	format string
}

func (p *liteLLMParser) ParseLine(line []byte, out *record.RowQueue[record.GatewayRow]) error {
	r := out.Next()
	r.Format = formatLiteLLM
	if p.format != "" {
		r.Format = p.format
	}
	var id, callID, requestID, status string
	var overhead int64
	var haveOverhead bool
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "id":
			return scan.Text("id", v, &id)
		case "request_id":
			return scan.Text("request_id", v, &requestID)
		case "litellm_call_id":
			return scan.Text("litellm_call_id", v, &callID)
		case "trace_id":
			return scan.Text("trace_id", v, &r.TraceID)
		case "startTime":
			return scan.TimestampIn("startTime", v, out.Zone, &r.UpstreamStart)
		case "completionStartTime":
			return scan.TimestampIn("completionStartTime", v, out.Zone, &r.UpstreamFirstByte)
		case "endTime":
			return scan.TimestampIn("endTime", v, out.Zone, &r.End)
		case "model_group":
			return p.labels.Label("model_group", v, &r.Model)
		case "model":
			if r.Model == "" {
				return p.labels.Label("model", v, &r.Model)
			}
		case "api_base":
			return p.labels.URLLabel("api_base", v, &r.Upstream)
		case "call_type":
			return p.labels.Label("call_type", v, &r.Route)
		case "prompt_tokens":
			return scan.Count32("prompt_tokens", v, &r.PromptTokens)
		case "completion_tokens":
			return scan.Count32("completion_tokens", v, &r.OutputTokens)
		case "status":
			return scan.Text("status", v, &status)
		case "hidden_params":
			return scan.EachMember(v, func(k []byte, v scan.Value) error {
				if string(k) == "litellm_overhead_time_ms" {
					var err error
					overhead, haveOverhead, err = scan.Duration("hidden_params.litellm_overhead_time_ms", v, 3)
					return err
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.UpstreamStart == 0 {
		return record.Missing("startTime")
	}
	if r.End == 0 {
		return record.Missing("endTime")
	}
	r.UpstreamEnd = r.End
	if haveOverhead {
		r.Start = r.UpstreamStart - overhead
	}
	if r.UpstreamFirstByte == r.UpstreamStart {
		// LiteLLM sets completionStartTime to startTime when it saw no
		// first chunk (a failure, or a provider it cannot time).
		r.UpstreamFirstByte = 0
	}
	raw := requestID
	if raw == "" {
		raw = id
	}
	r.RequestID = liteLLMRequestID(raw)
	if r.RequestID == "" {
		r.RequestID = callID
	}
	if r.RequestID == "" {
		return record.Missing("id")
	}
	// error_str can quote the request, so only the outcome is kept.
	if strings.EqualFold(status, "failure") {
		r.ResponseFlags = "failure"
	}
	return nil
}

// liteLLMRequestID maps a provider response id back to the request ID the
// inference server was given (see the package comment of this file).
func liteLLMRequestID(id string) string {
	if i := strings.Index(id, "_cache_hit"); i >= 0 {
		id = id[:i]
	}
	for _, prefix := range []string{"chatcmpl-", "cmpl-"} {
		if strings.HasPrefix(id, prefix) {
			return id[len(prefix):]
		}
	}
	return id
}
