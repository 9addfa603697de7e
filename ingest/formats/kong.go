package ingest

import (
	"bytes"
	"strconv"
)

// Kong's file-log (and http-log, tcp-log…) plugins write one JSON object per
// request, built by kong/pdk/log.lua's serializer. All latencies are integer
// milliseconds measured by Kong's phase timers on the gateway host:
//
//	{"request":{"id":"9ec9…","uri":"/v1/chat/completions","headers":{"x-request-id":"4f1c…"}},
//	 "response":{"status":200},"upstream_status":"200",
//	 "latencies":{"kong":2,"proxy":7,"request":2145,"receive":2136},
//	 "tries":[{"ip":"10.1.4.23","port":8000,"balancer_start":1768471200006}],
//	 "started_at":1768471200004,
//	 "ai":{"proxy":{"usage":{"prompt_tokens":512,"completion_tokens":256,"time_to_first_token":179},
//	                "meta":{"request_model":"…","response_model":"…","llm_latency":2141}}}}
//
// Mapping, all on Kong's clock:
//
//	Start             = started_at
//	UpstreamStart     = started_at + latencies.kong      (access phase done: proxying begins)
//	UpstreamFirstByte = UpstreamStart + latencies.proxy  (upstream response headers)
//	UpstreamEnd       = UpstreamFirstByte + latencies.receive (body received; Kong ≥ 3.5)
//	End               = started_at + latencies.request
//
// latencies.proxy is -1 when Kong answered itself (not proxied): the
// upstream times are then absent. The request ID is the client's
// X-Request-Id header when it sent one (that is what the other tiers log),
// else Kong's own request.id. Model, tokens and TTFT come from the AI
// plugins' ai.<plugin>.meta / usage (both the "prompt_tokens" and the 3.8
// docs' singular "prompt_token" spellings); TTFT is Kong's own measurement.
const formatKong = "kong"

func init() {
	registerLine(Gateway, formatKong, sniffKong, func() lineParser[GatewayRow] { return &kongParser{} })
}

func sniffKong(line []byte) bool {
	var started, latencies bool
	err := jsonObject(line, func(k []byte, esc bool, _ jsonValue) error {
		switch string(memberKey(k, esc)) {
		case "started_at":
			started = true
		case "latencies":
			latencies = true
		}
		return nil
	})
	return err == nil && started && latencies
}

type kongParser struct{ labels labels }

func (p *kongParser) parseLine(line []byte, out *rowQueue[GatewayRow]) error {
	r := out.next()
	r.Format = formatKong
	var startedAt, kong, proxy, request, receive int64
	var haveStart, haveKong, haveProxy, haveRequest, haveReceive bool
	var kongID, headerID string
	var status, upstreamStatus int32
	err := jsonObject(line, func(k []byte, esc bool, v jsonValue) error {
		var err error
		switch string(memberKey(k, esc)) {
		case "started_at":
			startedAt, haveStart, err = epochMillis("started_at", v)
		case "latencies":
			err = eachMember(v, func(k []byte, v jsonValue) error {
				var err error
				switch string(k) {
				case "kong":
					kong, haveKong, err = duration("latencies.kong", v, 3)
				case "proxy":
					proxy, haveProxy, err = duration("latencies.proxy", v, 3)
				case "request":
					request, haveRequest, err = duration("latencies.request", v, 3)
				case "receive":
					receive, haveReceive, err = duration("latencies.receive", v, 3)
				}
				return err
			})
		case "request":
			err = eachMember(v, func(k []byte, v jsonValue) error {
				switch string(k) {
				case "id":
					return text("request.id", v, &kongID)
				case "uri":
					var uri string
					if err := text("request.uri", v, &uri); err != nil {
						return err
					}
					if i := bytes.IndexByte([]byte(uri), '?'); i >= 0 {
						uri = uri[:i]
					}
					r.Route = p.labels.intern([]byte(uri))
				case "headers":
					return eachMember(v, func(k []byte, v jsonValue) error {
						if string(bytes.ToLower(k)) == "x-request-id" {
							if v.kind == jsonArray { // a repeated header: Kong logs a list
								return eachElement(v, func(e jsonValue) error {
									if headerID == "" {
										return text("request.headers.x-request-id", e, &headerID)
									}
									return nil
								})
							}
							return text("request.headers.x-request-id", v, &headerID)
						}
						return nil
					})
				}
				return nil
			})
		case "response":
			err = eachMember(v, func(k []byte, v jsonValue) error {
				if string(k) == "status" {
					return httpStatus("response.status", v, &status)
				}
				return nil
			})
		case "upstream_status":
			// "200" or, after retries, "502, 200": the last attempt's status.
			if b, ok, _ := textBytes("upstream_status", v); ok {
				if i := bytes.LastIndexByte(b, ','); i >= 0 {
					b = bytes.TrimSpace(b[i+1:])
				}
				if n, err := strconv.Atoi(string(b)); err == nil && n > 0 && n < 1000 {
					upstreamStatus = int32(n)
				}
			}
		case "tries":
			var n int32
			err = eachElement(v, func(e jsonValue) error {
				n++
				var ip, port string
				err := eachMember(e, func(k []byte, v jsonValue) error {
					switch string(k) {
					case "ip":
						return text("tries.ip", v, &ip)
					case "port":
						return text("tries.port", v, &port)
					}
					return nil
				})
				if ip != "" {
					host := ip
					if port != "" {
						host += ":" + port
					}
					r.Upstream = p.labels.intern([]byte(host))
				}
				return err
			})
			if n > 0 {
				r.Attempts = int32Ptr(n)
			}
		case "ai":
			err = eachMember(v, func(_ []byte, plugin jsonValue) error { return p.aiPlugin(plugin, r) })
		}
		return err
	})
	if err != nil {
		return err
	}
	if !haveStart {
		return missing("started_at")
	}
	r.RequestID = headerID
	if r.RequestID == "" {
		r.RequestID = kongID
	}
	if r.RequestID == "" {
		return missing("request.id")
	}
	r.Start = startedAt
	if haveRequest {
		r.End = startedAt + request
	}
	if haveKong && haveProxy {
		r.UpstreamStart = startedAt + kong
		r.UpstreamFirstByte = r.UpstreamStart + proxy
		if haveReceive {
			r.UpstreamEnd = r.UpstreamFirstByte + receive
		}
	}
	r.Status = status
	if r.Status == 0 {
		r.Status = upstreamStatus
	}
	return nil
}

// aiPlugin reads one ai.<plugin> object: usage and meta.
func (p *kongParser) aiPlugin(v jsonValue, r *GatewayRow) error {
	return eachMember(v, func(k []byte, v jsonValue) error {
		switch string(k) {
		case "usage":
			return eachMember(v, func(k []byte, v jsonValue) error {
				switch string(k) {
				case "prompt_tokens", "prompt_token":
					return count32("ai.usage.prompt_tokens", v, &r.PromptTokens)
				case "completion_tokens", "completion_token":
					return count32("ai.usage.completion_tokens", v, &r.OutputTokens)
				case "time_to_first_token":
					ns, ok, err := duration("ai.usage.time_to_first_token", v, 3)
					if ok {
						r.TTFTNS = nsPtr(ns)
					}
					return err
				}
				return nil
			})
		case "meta":
			return eachMember(v, func(k []byte, v jsonValue) error {
				switch string(k) {
				case "request_model":
					if r.Model == "" {
						return p.labels.label("ai.meta.request_model", v, &r.Model)
					}
				case "response_model":
					// The model that answered beats the one asked for.
					return p.labels.label("ai.meta.response_model", v, &r.Model)
				}
				return nil
			})
		}
		return nil
	})
}

// epochMillis reads Unix epoch milliseconds exactly into ns.
func epochMillis(field string, v jsonValue) (int64, bool, error) {
	b, ok, err := textBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	ns, perr := parseScaled(b, 6)
	if perr != nil || ns < minEpochSec*1e9 || ns > maxEpochSec*1e9 {
		return 0, false, fieldErr(field, ErrBadTime, "%.40q is not Unix epoch milliseconds in 2000..2100", b)
	}
	return ns, true, nil
}
