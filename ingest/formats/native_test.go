package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// decodeAll runs a streaming decoder over input and checks the line
// accounting of its chunker.
func decodeAll[T Row](t testing.TB, tier Tier, input []byte) (rows []T, rejects []*ParseError) {
	return decodeFormat[T](t, tier, formatNative, input)
}

// decodeFormat runs a streaming decoder of a line format over input and
// checks the line accounting of its chunker.
func decodeFormat[T Row](t testing.TB, tier Tier, format string, input []byte) (rows []T, rejects []*ParseError) {
	d, err := NewDecoder[T](tier, format, bytes.NewReader(input), "in.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for {
		var row T
		err := d.Next(&row)
		if err == io.EOF {
			break
		}
		var pe *ParseError
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
	c := d.(*lineStream[T]).c
	decoded := d.(*lineStream[T]).decoded
	if got := decoded + int64(len(rejects)) + c.dups + c.blank; got != c.lines {
		t.Fatalf("lines %d != decoded %d + rejected %d + duplicates %d + blank %d", c.lines, decoded, len(rejects), c.dups, c.blank)
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
		rows, _ := decodeAll[ClientRow](t, Client, in)
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
		rows, _ := decodeAll[GatewayRow](t, Gateway, in)
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
		rows, _ := decodeAll[ServerRow](t, Server, in)
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
	rows, rejects := decodeAll[ClientRow](t, Client, b.Bytes())
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
	long := `{"request_id":"big","start":1796032800,"end":1796032801,"pad":"` + strings.Repeat("x", MaxLineBytes) + `"}`
	in := `{"request_id":"a","start":1796032800,"end":1796032801}` + "\n" + long + "\n" +
		`{"request_id":"b","start":1796032800,"end":1796032801}` + "\n"
	rows, rejects := decodeAll[ClientRow](t, Client, []byte(in))
	if len(rows) != 2 || rows[0].RequestID != "a" || rows[1].RequestID != "b" || rows[1].SourceLine != 3 {
		t.Fatalf("rows around a long line: %+v", rows)
	}
	if len(rejects) != 1 || rejects[0].Line != 2 || !errors.Is(rejects[0], ErrLineTooLong) || len(rejects[0].Raw) != 1024 {
		t.Fatalf("long line reject: %v", rejects)
	}
	// A line just under the limit is decoded.
	ok := `{"request_id":"ok","start":1796032800,"end":1796032801,"pad":"` + strings.Repeat("y", 3<<20) + `"}`
	rows, rejects = decodeAll[ClientRow](t, Client, []byte(ok))
	if len(rows) != 1 || len(rejects) != 0 {
		t.Fatalf("3 MiB line: %d rows, %v", len(rows), rejects)
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		`{"id":"r1","prompt":"tell me \"x\"","n":1}`:                 `{"id":"r1","prompt":"<redacted 13 bytes>","n":1}`,
		`{"messages":[{"role":"user","content":"hi"}],"id":"r"}`:     `{"messages":[{"role":"<redacted 4 bytes>","content":"<redacted 2 bytes>"}],"id":"r"}`,
		`{"id":"r1","prompt":"cut off mid-wri`:                       `{"id":"r1","prompt":"<redacted 15 bytes>"`,
		`{"text": null, "prompt_tokens": 5}`:                         `{"text": null, "prompt_tokens": 5}`,
		`{"key":"gen_ai.prompt","value":{"stringValue":"hi there"}}`: `{"key":"gen_ai.prompt","value":{"stringValue":"<redacted 8 bytes>"}}`,
		`{"key":"Bearer sk-1","value":{"intValue":"3"}}`:             `{"key":"<redacted 11 bytes>","value":{"intValue":"3"}}`,
		`{"a b":"x","pr\u006fmpt":"y","model":"m\u0000"}`:            `{"<redacted 3 bytes>":"<redacted 1 bytes>","prompt":"<redacted 1 bytes>","model":"<redacted 7 bytes>"}`,
		`{"model":"` + strings.Repeat("m", 129) + `"}`:               `{"model":"<redacted 129 bytes>"}`,
		`{"stop":["a","b"],"model":"llama-3"} trailing words`:        `{"stop":["<redacted 1 bytes>","<redacted 1 bytes>"],"model":"llama-3"} <redacted 8 bytes> <redacted 5 bytes>`,
		`[1, 2, 3]`: `[1, 2, 3]`,
		`INFO 11-30 10:00:00 logger.py:37] Received request cmpl-7: prompt: 'a 1', n=1.`:                   `<redacted 4 bytes> 11-30 10:00:00 <redacted 12 bytes>] <redacted 16 bytes> cmpl-7: <redacted 6 bytes>: '<redacted 3 bytes>', <redacted 1 bytes>=1.`,
		`[2026-01-15T10:00:02.000Z] "POST /v1 HTTP/1.1" 200 - 12ms "f0e1d2c3-0000-4000-8000-0000" "don't"`: `[2026-01-15T10:00:02.000Z] "<redacted 17 bytes>" 200 - 12ms "f0e1d2c3-0000-4000-8000-0000" "<redacted 5 bytes>"`,
		`note: it's cut`: `<redacted 4 bytes>: <redacted 2 bytes>'<redacted 5 bytes>`,
	} {
		if got := string(redact([]byte(in))); got != want {
			t.Errorf("redact(%s):\n got %s\nwant %s", in, got, want)
		}
	}
}
