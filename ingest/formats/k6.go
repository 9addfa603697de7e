package formats

import (
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// k6 run --out json=FILE writes one JSON object per line (grafana/k6
// internal/output/json/wrapper.go): a definition per metric, then one point
// per sample:
//
//	{"type":"Metric","data":{"name":"http_req_duration","type":"trend","contains":"time",…},"metric":"http_req_duration"}
//	{"type":"Point","data":{"time":"2026-01-15T10:00:02.152300412Z","value":2152.118,
//	   "tags":{"method":"POST","status":"200","url":"…","scenario":"default",…},
//	   "metadata":{"request_id":"4f1c2a9e-…"}},"metric":"http_req_duration"}
//
// One row per http_req_duration point, from that line alone. Every
// http_req_* point of a request carries the same time, the moment its
// response body completed (lib/netext/httpext/tracer.go), so:
//   - End = data.time (RFC 3339 with an offset, the load generator's wall
//     clock); E2ENS = data.value (ms: sending + waiting + receiving, without
//     connection set-up); Start = End - E2ENS, derived on the same host.
//   - RequestID: k6 has none of its own; a script sets it, in the point's
//     metadata or as a tag, under request_id, x_request_id or x-request-id
//     (metadata first).
//   - Status: tags.status ("0" when no response came, left NULL); Error:
//     tags.error (k6's own short messages), else "k6 error " + error_code.
//     Model: a "model" tag when the script sets one.
//
// No first token: k6 times only the first byte (http_req_waiting, on a line
// of its own, up to the response headers, which an SSE server sends before
// the first token), and lines are decoded independently, so points of one
// request are never combined. Metric definitions and every other metric's
// points (http_reqs, http_req_waiting, vus, iterations…) give zero rows.

const formatK6 = "k6"

func init() {
	record.RegisterLine(record.Client, formatK6, sniffK6, func() record.LineParser[record.ClientRow] { return &k6Parser{} })
}

// sniffK6 accepts {"type":"Point"|"Metric", "data":{…}, "metric":"…"}.
func sniffK6(line []byte) bool {
	if lgNativeLike(line) {
		return false
	}
	var typ, data, metric bool
	lgSniffMembers(line, func(key []byte, v scan.Value, complete bool) bool {
		switch string(key) {
		case "type":
			typ = complete && v.Kind == scan.String && (string(v.Raw) == "Point" || string(v.Raw) == "Metric")
			return typ
		case "data":
			data = !complete || v.Kind == scan.ObjectKind
		case "metric":
			metric = complete && v.Kind == scan.String
		}
		return true
	})
	return typ && data && metric
}

type k6Parser struct{ labels scan.Labels }

func (p *k6Parser) ParseLine(line []byte, out *record.RowQueue[record.ClientRow]) error {
	var typ, metric []byte
	var data scan.Value
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		var err error
		switch string(scan.MemberKey(k, esc)) {
		case "type":
			typ, _, err = scan.TextBytes("type", v)
		case "metric":
			metric, _, err = scan.TextBytes("metric", v)
		case "data":
			data = v
		}
		return err
	})
	if err != nil {
		return err
	}
	switch string(typ) {
	case "Point":
	case "Metric":
		return nil
	case "":
		return record.Missing("type")
	default:
		return nil // a line type of a later k6: nothing to keep
	}
	if string(metric) != "http_req_duration" {
		return nil
	}
	var r record.ClientRow
	var tagID, errorCode []byte
	err = lgMembers("data", data, func(key []byte, v scan.Value) error {
		switch string(key) {
		case "time":
			return scan.Timestamp("data.time", v, &r.End)
		case "value":
			return lgDurationField("data.value", v, 1e6, &r.E2ENS)
		case "metadata":
			return lgMembers("data.metadata", v, func(key []byte, v scan.Value) error {
				if k6IDKey(key) {
					return scan.Text("data.metadata."+string(key), v, &r.RequestID)
				}
				return nil
			})
		case "tags":
			return lgMembers("data.tags", v, func(key []byte, v scan.Value) error {
				switch k := string(key); {
				case k6IDKey(key):
					b, ok, err := scan.TextBytes("data.tags."+k, v)
					if ok {
						tagID = b
					}
					return err
				case k == "status":
					return scan.HTTPStatus("data.tags.status", v, &r.Status)
				case k == "error":
					b, ok, err := scan.TextBytes("data.tags.error", v)
					if ok {
						r.Error = p.labels.Intern(lgErrorLabel(b))
					}
					return err
				case k == "error_code":
					b, _, err := scan.TextBytes("data.tags.error_code", v)
					errorCode = b
					return err
				case k == "model":
					return p.labels.Label("data.tags.model", v, &r.Model)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.End == 0:
		return record.Missing("data.time")
	case r.E2ENS == nil:
		return record.Missing("data.value")
	}
	r.Start = r.End - *r.E2ENS
	if r.RequestID == "" && tagID != nil {
		r.RequestID = string(tagID)
	}
	if r.Error == "" && len(errorCode) > 0 {
		r.Error = p.labels.Intern(append([]byte("k6 error "), errorCode...))
	}
	r.Format = formatK6
	*out.Next() = r
	return nil
}

func k6IDKey(key []byte) bool {
	switch string(key) {
	case "request_id", "x_request_id", "x-request-id":
		return true
	}
	return false
}
