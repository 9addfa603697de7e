package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/record"
)

// decodeAll runs a streaming decoder over input and checks the line
// accounting of its chunker.
func decodeAll[T record.Row](t testing.TB, tier record.Tier, input []byte) (rows []T, rejects []*record.ParseError) {
	return decodeFormat[T](t, tier, formatNative, input)
}

// decodeFormat runs a streaming decoder of a line format over input and
// checks the line accounting of its chunker.
func decodeFormat[T record.Row](t testing.TB, tier record.Tier, format string, input []byte) (rows []T, rejects []*record.ParseError) {
	d, err := ingest.NewDecoder[T](tier, format, bytes.NewReader(input), "in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for {
		var row T
		err := d.Next(&row)
		if err == io.EOF {
			break
		}
		var pe *record.ParseError
		if errors.As(err, &pe) {
			if pe.File != "in.jsonl" || pe.Line < 1 {
				t.Fatalf("reject without a position: %v", pe)
			}
			rejects = append(rejects, pe)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	c, _ := ingest.Counts(d)
	decoded := c.Decoded
	if got := decoded + int64(len(rejects)) + c.Duplicates + c.Blank; got != c.Lines {
		t.Fatalf("lines %d != decoded %d + rejected %d + duplicates %d + blank %d", c.Lines, decoded, len(rejects), c.Duplicates, c.Blank)
	}
	if format == formatNative && int64(len(rows)) != decoded {
		t.Fatalf("a native line is one row: %d rows from %d lines", len(rows), decoded)
	}
	return rows, rejects
}

func fuzzSeeds(f *testing.F, lines ...string) {
	f.Add([]byte(strings.Join(lines, "\n")))
	for _, l := range lines {
		f.Add([]byte(l))
	}
}

func FuzzNativeClient(f *testing.F) {
	fuzzSeeds(f,
		`{"request_id":"r1","start":"2026-11-30T10:00:00Z","first_token":1796032800.25,"end":"2026-11-30T10:00:02.123456789Z","status":200,"streamed":true,"model":"m","prompt_tokens":"100","output_tokens":50}`,
		`{"request_id":"r2","start":1796032800.5,"end":1796032801,"streamed":"false","error":"-"}`,
		`{"request_id":"r3","start":"2026-11-30T10:00:0`, "", "\r",
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeAll[record.ClientRow](t, record.Client, in)
		for _, r := range rows {
			if r.RequestID == "" || r.Start == 0 || r.End == 0 || r.SourceLine < 1 {
				t.Fatalf("row without its required fields: %+v", r)
			}
		}
	})
}

func FuzzNativeGateway(f *testing.F) {
	fuzzSeeds(f,
		`{"request_id":"r1","start":"2026-11-30T10:00:02.5Z","upstream_start":"2026-11-30T10:00:02.51Z","upstream_end":"2026-11-30T10:00:04.4Z","end":"2026-11-30T10:00:04.41Z","status":"200","route":"/v1/chat/completions","upstream":"10.0.0.7:8000","gateway":"gw-1"}`,
		`{"request_id":"r2","start":1796032800,"end":null}`,
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeAll[record.GatewayRow](t, record.Gateway, in)
		for _, r := range rows {
			if r.RequestID == "" || r.Start == 0 || r.End == 0 {
				t.Fatalf("row without its required fields: %+v", r)
			}
		}
	})
}

func FuzzNativeServer(f *testing.F) {
	fuzzSeeds(f,
		`{"request_id":"r1","arrival":1796032796.9,"scheduled":1796032797.0,"first_token":1796032797.1,"end":1796032798.7,"model":"m","replica":"pod-a","prompt_tokens":100,"output_tokens":50,"finish_reason":"stop","status":200}`,
		`{"request_id":"r2","arrival":"1796032797.25","status":500}`,
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeAll[record.ServerRow](t, record.Server, in)
		for _, r := range rows {
			if r.RequestID == "" || r.Arrival == 0 {
				t.Fatalf("row without its required fields: %+v", r)
			}
		}
	})
}

// TestLinesAcrossChunks feeds more than one chunk of lines, with CRLF line
// ends, duplicates far apart and near, blank lines and no final newline, and
// checks every line is numbered and counted once.
func TestLinesAcrossChunks(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	const n = 40000 // about 3 MiB: several chunks
	wantDup, wantBlank := 0, 0
	for i := 1; i <= n; i++ {
		switch {
		case i%1000 == 0:
			b.WriteString("  \r\n")
			wantBlank++
		case i%997 == 0: // a duplicate of the line before it
			b.WriteString(fmt.Sprintf(`{"request_id":"r%d","start":1796032800,"end":1796032801,"model":"%s"}`, i-1, strings.Repeat("m", 40)) + "\r\n")
			wantDup++
		default:
			b.WriteString(fmt.Sprintf(`{"request_id":"r%d","start":1796032800,"end":1796032801,"model":"%s"}`, i, strings.Repeat("m", 40)))
			if i < n {
				b.WriteString("\r\n")
			}
		}
	}
	rows, rejects := decodeAll[record.ClientRow](t, record.Client, b.Bytes())
	if len(rejects) != 0 {
		t.Fatalf("rejects: %v", rejects[0])
	}
	if want := n - wantDup - wantBlank; len(rows) != want {
		t.Fatalf("rows: got %d, want %d", len(rows), want)
	}
	for _, r := range rows {
		if r.RequestID != fmt.Sprintf("r%d", r.SourceLine) {
			t.Fatalf("line %d holds %s", r.SourceLine, r.RequestID)
		}
		if strings.HasSuffix(r.Model, "\r") {
			t.Fatal("CR left in a value")
		}
	}
}

func TestLongLine(t *testing.T) {
	t.Parallel()
	long := `{"request_id":"big","start":1796032800,"end":1796032801,"pad":"` + strings.Repeat("x", record.MaxLineBytes) + `"}`
	in := `{"request_id":"a","start":1796032800,"end":1796032801}` + "\n" + long + "\n" +
		`{"request_id":"b","start":1796032800,"end":1796032801}` + "\n"
	rows, rejects := decodeAll[record.ClientRow](t, record.Client, []byte(in))
	if len(rows) != 2 || rows[0].RequestID != "a" || rows[1].RequestID != "b" || rows[1].SourceLine != 3 {
		t.Fatalf("rows around a long line: %+v", rows)
	}
	if len(rejects) != 1 || rejects[0].Line != 2 || !errors.Is(rejects[0], record.ErrLineTooLong) || len(rejects[0].Raw) != 1024 {
		t.Fatalf("long line reject: %v", rejects)
	}
	// A line just under the limit is decoded.
	ok := `{"request_id":"ok","start":1796032800,"end":1796032801,"pad":"` + strings.Repeat("y", 3<<20) + `"}`
	rows, rejects = decodeAll[record.ClientRow](t, record.Client, []byte(ok))
	if len(rows) != 1 || len(rejects) != 0 {
		t.Fatalf("3 MiB line: %d rows, %v", len(rows), rejects)
	}
}

// TestRouteUpstreamDropQuery: a gateway's route and upstream, native or
// mapped, keep no query string, fragment or user:password, as the access
// log readers do: they can carry an API key or a token.
func TestRouteUpstreamDropQuery(t *testing.T) {
	t.Parallel()
	native := `{"request_id":"r1","start":1796032800,"end":1796032801,"upstream_start":1796032800.1,` +
		`"route":"/v1/chat/completions?api_key=SECRET1","upstream":"http://u:SECRET2@10.0.0.1:8000/?token=SECRET3"}` + "\n"
	rows, rejects := decodeAll[record.GatewayRow](t, record.Gateway, []byte(native))
	if len(rows) != 1 || len(rejects) != 0 {
		t.Fatalf("native: %d rows, rejects %v", len(rows), rejects)
	}
	if rows[0].Route != "/v1/chat/completions" || rows[0].Upstream != "http://10.0.0.1:8000/" {
		t.Errorf("native: route %q, upstream %q", rows[0].Route, rows[0].Upstream)
	}

	m, err := loadMapping("../../testdata/mappings/gateway.toml")
	if err != nil {
		t.Fatal(err)
	}
	mapped := `{"http":{"headers":{"x-request-id":"r2"},"status":200,"route":"/v1/completions?key=SECRET4#x"},` +
		`"ts":{"received":"2026-11-30T10:00:00Z","sent":"2026-11-30T10:00:01Z"},"backend":{"addr":"http://10.0.0.2:8000/v1?token=SECRET5"}}`
	var q record.RowQueue[record.GatewayRow]
	if err := newMappedParser(m, gatewayTargets).ParseLine([]byte(mapped), &q); err != nil {
		t.Fatal(err)
	}
	got := q.Rows
	if len(got) != 1 || got[0].Route != "/v1/completions" || got[0].Upstream != "http://10.0.0.2:8000/v1" {
		t.Errorf("mapped: %+v", got)
	}
	for _, r := range append(rows, got...) {
		if strings.Contains(fmt.Sprint(r), "SECRET") {
			t.Errorf("a row keeps a secret: %+v", r)
		}
	}
}
