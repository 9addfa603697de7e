package formats

import (
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Helpers shared by the gateways' access-log readers (envoy, nginx): JSON
// member values named in their errors and W3C traceparent headers.

// memberText is textBytes naming the member only when it is wrong, so that
// the good ones cost no allocation.
func memberText(key []byte, v scan.Value) ([]byte, bool, error) {
	b, ok, err := scan.TextBytes("", v)
	if fe, isFE := err.(*record.FieldError); isFE {
		fe.Field = string(key)
	}
	return b, ok, err
}

// traceparentID returns the trace ID of a W3C traceparent header,
// VERSION-TRACEID-SPANID-FLAGS.
func traceparentID(v []byte) []byte {
	if len(v) >= 36 && v[2] == '-' && v[35] == '-' {
		return v[3:35]
	}
	return nil
}
