package ingest

// The native formats: one JSON object per line, one object per request, in
// the shapes below (see the README for the full description). Unknown
// members are skipped without being decoded.
//
//	client:  {"request_id":"r1","start":"2026-11-30T10:00:00.123456Z","first_token":1796032800.5,
//	          "end":"…","status":200,"error":"","streamed":true,"model":"m","use_case":"chat",
//	          "client":"web-1","region":"eu","prompt_tokens":512,"output_tokens":128}
//	gateway: {"request_id":"r1","start":…,"end":…,"upstream_start":…,"upstream_end":…,
//	          "status":200,"route":"/v1/chat/completions","upstream":"10.0.0.7:8000","gateway":"gw-1"}
//	server:  {"request_id":"r1","arrival":…,"scheduled":…,"first_token":…,"end":…,"model":"m",
//	          "replica":"r-0","prompt_tokens":512,"output_tokens":128,"finish_reason":"stop","status":200}

const formatNative = "native"

func init() {
	registerLine(Client, formatNative, sniffNative(Client), func() lineParser[ClientRow] { return &nativeClient{} })
	registerLine(Gateway, formatNative, sniffNative(Gateway), func() lineParser[GatewayRow] { return &nativeGateway{} })
	registerLine(Server, formatNative, sniffNative(Server), func() lineParser[ServerRow] { return &nativeServer{} })
}

// sniffNative accepts a JSON object line with a request_id and the member
// that marks the tier's start.
func sniffNative(t Tier) func(line []byte) bool {
	marker := map[Tier]string{Client: "start", Gateway: "upstream_start", Server: "arrival"}[t]
	return func(line []byte) bool {
		var id, mark, other bool
		err := jsonObject(line, func(k []byte, esc bool, _ jsonValue) error {
			switch string(memberKey(k, esc)) {
			case "request_id":
				id = true
			case marker:
				mark = true
			case "upstream_start", "arrival":
				other = true
			}
			return nil
		})
		// A client record has "start" but neither gateway nor server markers.
		return err == nil && id && mark && (t != Client || !other)
	}
}

type nativeClient struct {
	labels labels
	ids    idArena
}

func (p *nativeClient) parseLine(line []byte, out *rowQueue[ClientRow]) error {
	r := out.next()
	err := jsonObject(line, func(k []byte, esc bool, v jsonValue) error {
		switch key := memberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.text("request_id", v, &r.RequestID)
		case "start":
			return timestamp("start", v, &r.Start)
		case "first_token":
			return timestamp("first_token", v, &r.FirstToken)
		case "end":
			return timestamp("end", v, &r.End)
		case "status":
			return httpStatus("status", v, &r.Status)
		case "error":
			return p.labels.label("error", v, &r.Error)
		case "streamed":
			return boolean("streamed", v, func(b bool) { r.Streamed = boolPtr(b) })
		case "model":
			return p.labels.label("model", v, &r.Model)
		case "use_case":
			return p.labels.label("use_case", v, &r.UseCase)
		case "client":
			return p.labels.label("client", v, &r.Client)
		case "region":
			return p.labels.label("region", v, &r.Region)
		case "prompt_tokens":
			return count32("prompt_tokens", v, &r.PromptTokens)
		case "output_tokens":
			return count32("output_tokens", v, &r.OutputTokens)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return missing("request_id")
	case r.Start == 0:
		return missing("start")
	case r.End == 0:
		return missing("end")
	}
	r.Format = formatNative
	return nil
}

type nativeGateway struct {
	labels labels
	ids    idArena
}

func (p *nativeGateway) parseLine(line []byte, out *rowQueue[GatewayRow]) error {
	r := out.next()
	err := jsonObject(line, func(k []byte, esc bool, v jsonValue) error {
		switch key := memberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.text("request_id", v, &r.RequestID)
		case "start":
			return timestamp("start", v, &r.Start)
		case "end":
			return timestamp("end", v, &r.End)
		case "upstream_start":
			return timestamp("upstream_start", v, &r.UpstreamStart)
		case "upstream_end":
			return timestamp("upstream_end", v, &r.UpstreamEnd)
		case "status":
			return httpStatus("status", v, &r.Status)
		case "route":
			return p.labels.label("route", v, &r.Route)
		case "upstream":
			return p.labels.label("upstream", v, &r.Upstream)
		case "gateway":
			return p.labels.label("gateway", v, &r.Gateway)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return missing("request_id")
	case r.Start == 0:
		return missing("start")
	case r.End == 0:
		return missing("end")
	}
	r.Format = formatNative
	return nil
}

type nativeServer struct {
	labels labels
	ids    idArena
}

func (p *nativeServer) parseLine(line []byte, out *rowQueue[ServerRow]) error {
	r := out.next()
	err := jsonObject(line, func(k []byte, esc bool, v jsonValue) error {
		switch key := memberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.text("request_id", v, &r.RequestID)
		case "arrival":
			return timestamp("arrival", v, &r.Arrival)
		case "scheduled":
			return timestamp("scheduled", v, &r.Scheduled)
		case "first_token":
			return timestamp("first_token", v, &r.FirstToken)
		case "end":
			return timestamp("end", v, &r.End)
		case "model":
			return p.labels.label("model", v, &r.Model)
		case "replica":
			return p.labels.label("replica", v, &r.Replica)
		case "prompt_tokens":
			return count32("prompt_tokens", v, &r.PromptTokens)
		case "output_tokens":
			return count32("output_tokens", v, &r.OutputTokens)
		case "finish_reason":
			return p.labels.label("finish_reason", v, &r.FinishReason)
		case "status":
			return httpStatus("status", v, &r.Status)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return missing("request_id")
	case r.Arrival == 0:
		return missing("arrival")
	}
	r.Format = formatNative
	return nil
}

func missing(field string) error { return &FieldError{Field: field, Err: ErrMissingField} }
