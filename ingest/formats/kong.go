package formats

import (
	"bytes"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
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
// else Kong's own request.id (Kong ≥ 3.5). A record with neither (Kong
// before 3.5 logs no request.id) is kept without one: the analysis matches
// it to a server record by time, else counts it. Model, tokens and TTFT come from the AI
// plugins' ai.<plugin>.meta / usage (both the "prompt_tokens" and the 3.8
// docs' singular "prompt_token" spellings); TTFT is Kong's own measurement.
const formatKong = "kong"

func init() {
	record.RegisterLine(record.Gateway, formatKong, sniffKong, func() record.LineParser[record.GatewayRow] { return &kongParser{} })
}

func sniffKong(line []byte) bool {
	var started, latencies bool
	err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "started_at":
			started = true
		case "latencies":
			latencies = true
		}
		return nil
	})
	return err == nil && started && latencies
}

type kongParser struct{ labels scan.Labels }

func (p *kongParser) ParseLine(line []byte, out *record.RowQueue[record.GatewayRow]) error {
	r := out.Next()
	r.Format = formatKong
	var startedAt, kong, proxy, request, receive int64
	var haveStart, haveKong, haveProxy, haveRequest, haveReceive bool
	var kongID, headerID string
	var status, upstreamStatus int32
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		var err error
		switch string(scan.MemberKey(k, esc)) {
		case "started_at":
			startedAt, haveStart, err = epochMillis("started_at", v)
		case "latencies":
			err = scan.EachMember(v, func(k []byte, v scan.Value) error {
				var err error
				switch string(k) {
				case "kong":
					kong, haveKong, err = scan.Duration("latencies.kong", v, 3)
				case "proxy":
					proxy, haveProxy, err = scan.Duration("latencies.proxy", v, 3)
				case "request":
					request, haveRequest, err = scan.Duration("latencies.request", v, 3)
				case "receive":
					receive, haveReceive, err = scan.Duration("latencies.receive", v, 3)
				}
				return err
			})
		case "request":
			err = scan.EachMember(v, func(k []byte, v scan.Value) error {
				switch string(k) {
				case "id":
					return scan.Text("request.id", v, &kongID)
				case "uri":
					var uri string
					if err := scan.Text("request.uri", v, &uri); err != nil {
						return err
					}
					r.Route = p.labels.Intern(scan.URLLabel([]byte(uri)))
				case "headers":
					return scan.EachMember(v, func(k []byte, v scan.Value) error {
						if string(bytes.ToLower(k)) == "x-request-id" {
							if v.Kind == scan.Array { // a repeated header: Kong logs a list
								return scan.EachElement(v, func(e scan.Value) error {
									if headerID == "" {
										return scan.Text("request.headers.x-request-id", e, &headerID)
									}
									return nil
								})
							}
							return scan.Text("request.headers.x-request-id", v, &headerID)
						}
						return nil
					})
				}
				return nil
			})
		case "response":
			err = scan.EachMember(v, func(k []byte, v scan.Value) error {
				if string(k) == "status" {
					return scan.HTTPStatus("response.status", v, &status)
				}
				return nil
			})
		case "upstream_status":
			// "200" or, after retries, "502, 200": the last attempt's status.
			if b, ok, _ := scan.TextBytes("upstream_status", v); ok {
				if i := bytes.LastIndexByte(b, ','); i >= 0 {
					b = bytes.TrimSpace(b[i+1:])
				}
				if n, err := strconv.Atoi(string(b)); err == nil && n > 0 && n < 1000 {
					upstreamStatus = int32(n)
				}
			}
		case "tries":
			var n int32
			err = scan.EachElement(v, func(e scan.Value) error {
				n++
				var ip, port string
				err := scan.EachMember(e, func(k []byte, v scan.Value) error {
					switch string(k) {
					case "ip":
						return scan.Text("tries.ip", v, &ip)
					case "port":
						return scan.Text("tries.port", v, &port)
					}
					return nil
				})
				if ip != "" {
					host := ip
					if port != "" {
						host += ":" + port
					}
					r.Upstream = p.labels.Intern(scan.URLLabel([]byte(host)))
				}
				return err
			})
			if n > 0 {
				r.Attempts = record.Int32Ptr(n)
			}
		case "ai":
			err = scan.EachMember(v, func(_ []byte, plugin scan.Value) error { return p.aiPlugin(plugin, r) })
		}
		return err
	})
	if err != nil {
		return err
	}
	if !haveStart {
		return record.Missing("started_at")
	}
	r.RequestID = headerID
	if r.RequestID == "" {
		r.RequestID = kongID
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
func (p *kongParser) aiPlugin(v scan.Value, r *record.GatewayRow) error {
	return scan.EachMember(v, func(k []byte, v scan.Value) error {
		switch string(k) {
		case "usage":
			return scan.EachMember(v, func(k []byte, v scan.Value) error {
				switch string(k) {
				case "prompt_tokens", "prompt_token":
					return scan.Count32("ai.usage.prompt_tokens", v, &r.PromptTokens)
				case "completion_tokens", "completion_token":
					return scan.Count32("ai.usage.completion_tokens", v, &r.OutputTokens)
				case "time_to_first_token":
					ns, ok, err := scan.Duration("ai.usage.time_to_first_token", v, 3)
					if ok {
						r.TTFTNS = record.NSPtr(ns)
					}
					return err
				}
				return nil
			})
		case "meta":
			return scan.EachMember(v, func(k []byte, v scan.Value) error {
				switch string(k) {
				case "request_model":
					if r.Model == "" {
						return p.labels.Label("ai.meta.request_model", v, &r.Model)
					}
				case "response_model":
					// The model that answered beats the one asked for.
					return p.labels.Label("ai.meta.response_model", v, &r.Model)
				}
				return nil
			})
		}
		return nil
	})
}

// epochMillis reads Unix epoch milliseconds exactly into ns.
func epochMillis(field string, v scan.Value) (int64, bool, error) {
	b, ok, err := scan.TextBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	ns, perr := scan.ParseScaled(b, 6)
	if perr != nil || ns < scan.MinEpochSec*1e9 || ns > scan.MaxEpochSec*1e9 {
		return 0, false, record.FieldErrorf(field, record.ErrBadTime, "%q is not Unix epoch milliseconds in 2000..2100", b)
	}
	return ns, true, nil
}
