package formats

import (
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The native formats: one JSON object per line, one object per request, in
// the shapes below (see docs/formats.md for the full description). Unknown
// members are skipped without being decoded.
//
//	client:  {"request_id":"r1","start":"2026-11-30T10:00:00.123456Z","first_token":1796032800.5,
//	          "end":"…","status":200,"error":"","streamed":true,"model":"m","use_case":"chat",
//	          "client":"web-1","region":"eu","prompt_tokens":512,"output_tokens":128}
//	gateway: {"request_id":"r1","start":…,"end":…,"upstream_start":…,"upstream_end":…,
//	          "status":200,"route":"/v1/chat/completions","upstream":"10.0.0.7:8000","gateway":"gw-1"}
//	server:  {"request_id":"r1","arrival":…,"scheduled":…,"first_token":…,"end":…,"model":"m",
//	          "replica":"r-0","prompt_tokens":512,"output_tokens":128,"finish_reason":"stop","status":200}

const formatNative = record.NativeFormat

func init() {
	record.RegisterLine(record.Client, formatNative, sniffNative(record.Client), func() record.LineParser[record.ClientRow] { return &nativeClient{} })
	record.RegisterLine(record.Gateway, formatNative, sniffNative(record.Gateway), func() record.LineParser[record.GatewayRow] { return &nativeGateway{} })
	record.RegisterLine(record.Server, formatNative, sniffNative(record.Server), func() record.LineParser[record.ServerRow] { return &nativeServer{} })
}

// sniffNative accepts a JSON object line with a request_id and the member
// that marks the tier's start.
func sniffNative(t record.Tier) func(line []byte) bool {
	marker := map[record.Tier]string{record.Client: "start", record.Gateway: "upstream_start", record.Server: "arrival"}[t]
	return func(line []byte) bool {
		var id, mark, other bool
		err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
			switch string(scan.MemberKey(k, esc)) {
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
		return err == nil && id && mark && (t != record.Client || !other)
	}
}

type nativeClient struct {
	labels scan.Labels
	ids    scan.IDArena
}

func (p *nativeClient) ParseLine(line []byte, out *record.RowQueue[record.ClientRow]) error {
	r := out.Next()
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch key := scan.MemberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.Text("request_id", v, &r.RequestID)
		case "start":
			return scan.TimestampIn("start", v, out.Zone, &r.Start)
		case "first_token":
			return scan.TimestampIn("first_token", v, out.Zone, &r.FirstToken)
		case "end":
			return scan.TimestampIn("end", v, out.Zone, &r.End)
		case "status":
			return scan.HTTPStatus("status", v, &r.Status)
		case "error":
			return p.labels.Label("error", v, &r.Error)
		case "streamed":
			return scan.Boolean("streamed", v, func(b bool) { r.Streamed = record.BoolPtr(b) })
		case "model":
			return p.labels.Label("model", v, &r.Model)
		case "use_case":
			return p.labels.Label("use_case", v, &r.UseCase)
		case "client":
			return p.labels.Label("client", v, &r.Client)
		case "region":
			return p.labels.Label("region", v, &r.Region)
		case "prompt_tokens":
			return scan.Count32("prompt_tokens", v, &r.PromptTokens)
		case "output_tokens":
			return scan.Count32("output_tokens", v, &r.OutputTokens)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return record.Missing("request_id")
	case r.Start == 0:
		return record.Missing("start")
	case r.End == 0:
		return record.Missing("end")
	}
	r.Format = formatNative
	return nil
}

type nativeGateway struct {
	labels scan.Labels
	ids    scan.IDArena
}

func (p *nativeGateway) ParseLine(line []byte, out *record.RowQueue[record.GatewayRow]) error {
	r := out.Next()
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch key := scan.MemberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.Text("request_id", v, &r.RequestID)
		case "start":
			return scan.TimestampIn("start", v, out.Zone, &r.Start)
		case "end":
			return scan.TimestampIn("end", v, out.Zone, &r.End)
		case "upstream_start":
			return scan.TimestampIn("upstream_start", v, out.Zone, &r.UpstreamStart)
		case "upstream_end":
			return scan.TimestampIn("upstream_end", v, out.Zone, &r.UpstreamEnd)
		case "status":
			return scan.HTTPStatus("status", v, &r.Status)
		case "route":
			return p.labels.URLLabel("route", v, &r.Route)
		case "upstream":
			return p.labels.URLLabel("upstream", v, &r.Upstream)
		case "gateway":
			return p.labels.Label("gateway", v, &r.Gateway)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return record.Missing("request_id")
	case r.Start == 0:
		return record.Missing("start")
	case r.End == 0:
		return record.Missing("end")
	}
	r.Format = formatNative
	return nil
}

type nativeServer struct {
	labels scan.Labels
	ids    scan.IDArena
}

func (p *nativeServer) ParseLine(line []byte, out *record.RowQueue[record.ServerRow]) error {
	r := out.Next()
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch key := scan.MemberKey(k, esc); string(key) {
		case "request_id":
			return p.ids.Text("request_id", v, &r.RequestID)
		case "arrival":
			return scan.TimestampIn("arrival", v, out.Zone, &r.Arrival)
		case "scheduled":
			return scan.TimestampIn("scheduled", v, out.Zone, &r.Scheduled)
		case "first_token":
			return scan.TimestampIn("first_token", v, out.Zone, &r.FirstToken)
		case "end":
			return scan.TimestampIn("end", v, out.Zone, &r.End)
		case "model":
			return p.labels.Label("model", v, &r.Model)
		case "replica":
			return p.labels.Label("replica", v, &r.Replica)
		case "prompt_tokens":
			return scan.Count32("prompt_tokens", v, &r.PromptTokens)
		case "output_tokens":
			return scan.Count32("output_tokens", v, &r.OutputTokens)
		case "finish_reason":
			return p.labels.Label("finish_reason", v, &r.FinishReason)
		case "status":
			return scan.HTTPStatus("status", v, &r.Status)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.RequestID == "":
		return record.Missing("request_id")
	case r.Arrival == 0:
		return record.Missing("arrival")
	}
	r.Format = formatNative
	return nil
}
