package formats

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

// More traces than tritonMaxOpen that never complete (no REQUEST_END): the
// oldest are emitted early, each once, in the order they started, and a
// fragment that comes after its trace was emitted early is not lost as a
// row of its own.
func TestTritonOpenBound(t *testing.T) {
	t.Parallel()
	const n = tritonMaxOpen + 5000
	var b bytes.Buffer
	b.WriteString("[")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"id":%d,"model_name":"m","model_version":1,"request_id":"r%d"},`+"\n", i, i)
		fmt.Fprintf(&b, `{"id":%d,"timestamps":[{"name":"QUEUE_START","ns":%d}]},`+"\n", i, 1000*i)
	}
	// Trace 1 was emitted when the bound was passed; this fragment comes
	// later than tritonRecent emissions, so it starts a trace of its own,
	// which has no info fragment and is rejected.
	fmt.Fprintf(&b, `{"id":1,"timestamps":[{"name":"COMPUTE_START","ns":5000}]}]`)
	rows, rejects := decodeServerDoc(t, parseTriton, b.Bytes())
	if len(rows) != n || len(rejects) != 1 {
		t.Fatalf("%d rows, %d rejects; want %d and 1", len(rows), len(rejects), n)
	}
	for i, r := range rows {
		if r.EngineRequestID != strconv.Itoa(i+1) || r.SourceLine != int64(2*i+1) || r.RequestID != "r"+strconv.Itoa(i+1) {
			t.Fatalf("row %d: %+v", i, r)
		}
	}
	if rejects[0].Line != 2*n+1 || record.Kind(rejects[0]) != "missing_field" {
		t.Errorf("reject: %v", rejects[0])
	}
}

// A late fragment of a trace emitted shortly before is rejected on its own
// line, not turned into a second row for the same id.
func TestTritonLateFragment(t *testing.T) {
	t.Parallel()
	in := `[{"id":9,"model_name":"m","request_id":"r9"},
{"id":9,"timestamps":[{"name":"REQUEST_START","ns":10},{"name":"HTTP_RECV_START","ns":5}]},
{"id":9,"timestamps":[{"name":"REQUEST_END","ns":40},{"name":"HTTP_SEND_END","ns":50}]},
{"id":9,"timestamps":[{"name":"HTTP_SEND_END","ns":60}]}]`
	rows, rejects := decodeServerDoc(t, parseTriton, []byte(in))
	if len(rows) != 1 || *rows[0].E2ENS != 45 || len(rejects) != 1 || rejects[0].Line != 4 {
		t.Fatalf("rows %+v, rejects %v", rows, rejects)
	}
}
