package ingest

import (
	"strings"
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
	newParser := func() lineParser[GatewayRow] { return &liteLLMParser{} }
	registerLine(Gateway, formatLiteLLM, sniffLiteLLM, newParser)
	// A pretty-printed document shows nothing telling on its first line, so
	// litellm-json is never sniffed: the user names it.
	registerDoc(Gateway, formatLiteLLMJSON, nil, jsonRecords(func() lineParser[GatewayRow] {
		return &liteLLMParser{format: formatLiteLLMJSON}
	}))
}

func sniffLiteLLM(line []byte) bool {
	var start, end, marker bool
	err := jsonObject(line, func(k []byte, esc bool, _ jsonValue) error {
		switch string(memberKey(k, esc)) {
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
	labels labels
	format string
}

func (p *liteLLMParser) parseLine(line []byte, out *rowQueue[GatewayRow]) error {
	r := out.next()
	r.Format = formatLiteLLM
	if p.format != "" {
		r.Format = p.format
	}
	var id, callID, requestID, status string
	var overhead int64
	var haveOverhead bool
	err := jsonObject(line, func(k []byte, esc bool, v jsonValue) error {
		switch string(memberKey(k, esc)) {
		case "id":
			return text("id", v, &id)
		case "request_id":
			return text("request_id", v, &requestID)
		case "litellm_call_id":
			return text("litellm_call_id", v, &callID)
		case "trace_id":
			return text("trace_id", v, &r.TraceID)
		case "startTime":
			return timestamp("startTime", v, &r.UpstreamStart)
		case "completionStartTime":
			return timestamp("completionStartTime", v, &r.UpstreamFirstByte)
		case "endTime":
			return timestamp("endTime", v, &r.End)
		case "model_group":
			return p.labels.label("model_group", v, &r.Model)
		case "model":
			if r.Model == "" {
				return p.labels.label("model", v, &r.Model)
			}
		case "api_base":
			return p.labels.label("api_base", v, &r.Upstream)
		case "call_type":
			return p.labels.label("call_type", v, &r.Route)
		case "prompt_tokens":
			return count32("prompt_tokens", v, &r.PromptTokens)
		case "completion_tokens":
			return count32("completion_tokens", v, &r.OutputTokens)
		case "status":
			return text("status", v, &status)
		case "hidden_params":
			return eachMember(v, func(k []byte, v jsonValue) error {
				if string(k) == "litellm_overhead_time_ms" {
					var err error
					overhead, haveOverhead, err = duration("hidden_params.litellm_overhead_time_ms", v, 3)
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
		return missing("startTime")
	}
	if r.End == 0 {
		return missing("endTime")
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
		return missing("id")
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
