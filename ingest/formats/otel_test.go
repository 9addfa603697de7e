package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/internal/rowtext"
	"github.com/infertrace/infertrace/ingest/record"
)

// otelLine renders one file exporter line holding the given spans of one
// gateway resource; each span is {traceID, spanID, parentID, kind, start ms,
// end ms, attributes JSON}.
func otelLine(spans ...[7]string) string {
	var b strings.Builder
	b.WriteString(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"gw"}}]},"scopeSpans":[{"scope":{"name":"t"},"spans":[`)
	for i, s := range spans {
		if i > 0 {
			b.WriteByte(',')
		}
		var start, end int64
		fmt.Sscan(s[4], &start)
		fmt.Sscan(s[5], &end)
		fmt.Fprintf(&b, `{"traceId":%q,"spanId":%q,"parentSpanId":%q,"name":"x","kind":%s,"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":[%s],"status":{}}`,
			s[0], s[1], s[2], s[3], 1796032800_000_000_000+start*1e6, 1796032800_000_000_000+end*1e6, s[6])
	}
	b.WriteString(`]}]}]}`)
	return b.String()
}

const (
	otelMethod = `{"key":"http.request.method","value":{"stringValue":"POST"}}`
	otelStatus = `{"key":"http.response.status_code","value":{"intValue":"200"}}`
)

// runOTelDoc runs a document format over input and checks its accounting.
func runOTelDoc[T record.Row](t testing.TB, parse record.DocParser[T], input []byte) (rows []T, rejects []*record.ParseError) {
	t.Helper()
	out := &record.DocOut[T]{
		File:   "in.json",
		Emit:   func(rs []T) error { rows = append(rows, rs...); return nil },
		Reject: func(pe *record.ParseError) error { rejects = append(rejects, pe); return nil },
	}
	if err := parse(bytes.NewReader(input), "in.json", out); err != nil {
		t.Fatal(err)
	}
	if out.Units != out.Decoded+int64(len(rejects)) || out.Rows != int64(len(rows)) {
		t.Fatalf("accounting: units %d, decoded %d, rejected %d, rows %d/%d",
			out.Units, out.Decoded, len(rejects), out.Rows, len(rows))
	}
	for _, pe := range rejects {
		if pe.Line < 1 || record.Kind(pe) == "other" {
			t.Fatalf("reject without a position or a kind: %v", pe)
		}
	}
	return rows, rejects
}

func gatewayParser(t testing.TB) record.DocParser[record.GatewayRow] {
	f, err := record.Lookup(record.Gateway, formatOTelGateway)
	if err != nil {
		t.Fatal(err)
	}
	return f.Doc.(record.DocParser[record.GatewayRow])
}

func clientParser(t testing.TB) record.DocParser[record.ClientRow] {
	f, err := record.Lookup(record.Client, formatOTelClient)
	if err != nil {
		t.Fatal(err)
	}
	return f.Doc.(record.DocParser[record.ClientRow])
}

// A child is paired with a parent that came up to otelHoldUnits units
// before it, whatever those units hold; further apart, the parent's row is
// already written without it. A child that comes first waits.
func TestOTelPairingWindow(t *testing.T) {
	t.Parallel()
	for _, gap := range []int{-3, 0, 1, otelHoldUnits - 1, otelHoldUnits, otelHoldUnits + 1, otelHoldUnits + 5} {
		t.Run(fmt.Sprint(gap), func(t *testing.T) {
			tr := "0123456789abcdef0123456789abcdef"
			server := otelLine([7]string{tr, "1111111111111111", "", "2", "0", "1000", otelMethod + "," + otelStatus})
			client := otelLine([7]string{tr, "2222222222222222", "1111111111111111", "3", "10", "990",
				`{"key":"server.address","value":{"stringValue":"up"}}`})
			other := otelLine([7]string{"ffffffffffffffffffffffffffffffff", "3333333333333333", "", "1", "0", "1", ""})
			lines := make([]string, 0, 20)
			first, second := server, client
			if gap < 0 {
				first, second, gap = client, server, -gap
			}
			lines = append(lines, first)
			for range gap - 1 {
				lines = append(lines, other)
			}
			if gap == 0 {
				lines[0] = strings.Replace(first, `]}]}]}`, `,`+strings.TrimSuffix(strings.SplitN(second, `"spans":[`, 2)[1], `]}]}]}`)+`]}]}]}`, 1)
			} else {
				lines = append(lines, second)
			}
			for range 3 {
				lines = append(lines, other)
			}
			rows, rejects := runOTelDoc(t, gatewayParser(t), []byte(strings.Join(lines, "\n")))
			if len(rejects) != 0 || len(rows) != 1 {
				t.Fatalf("rows %d, rejects %v", len(rows), rejects)
			}
			paired := rows[0].UpstreamStart != 0
			if want := gap <= otelHoldUnits || first == client; paired != want {
				t.Errorf("gap %d: paired %v, want %v: %+v", gap, paired, want, rows[0])
			}
			if paired && (rows[0].Upstream != "up" || rows[0].UpstreamEnd-rows[0].UpstreamStart != 980e6) {
				t.Errorf("upstream: %+v", rows[0])
			}
			if rows[0].SourceLine != 1 && first == server {
				t.Errorf("the row is not of the server span's line: %d", rows[0].SourceLine)
			}
		})
	}
}

// An Envoy AI Gateway span and the gateway's SERVER span of the same
// request, siblings under the caller's span, give one row (the SERVER
// span's, with the model and tokens of the other) when they are at most
// otelHoldUnits units apart, whichever comes first; further apart, each
// gives its own row. Spans of other traces or other parents never pair.
func TestOTelExtprocSiblingWindow(t *testing.T) {
	t.Parallel()
	tr := "0123456789abcdef0123456789abcdef"
	const caller = "cccccccccccccccc"
	server := `{"scope":{"name":"envoy"},"spans":[` + otelSpans(otelLine([7]string{tr, "1111111111111111", caller, "2", "0", "1000", otelMethod + "," + otelStatus})) + `]}`
	extproc := func(trace, parent string) string {
		return `{"scope":{"name":"envoyproxy/ai-gateway"},"spans":[` + otelSpans(otelLine([7]string{trace, "2222222222222222", parent, "1", "5", "990",
			`{"key":"openinference.span.kind","value":{"stringValue":"LLM"}},{"key":"llm.model_name","value":{"stringValue":"m"}},` +
				`{"key":"llm.token_count.prompt","value":{"intValue":"3"}},{"key":"llm.token_count.completion","value":{"intValue":"4"}}`})) + `]}`
	}
	line := func(scopes ...string) string {
		return `{"resourceSpans":[{"resource":{},"scopeSpans":[` + strings.Join(scopes, ",") + `]}]}`
	}
	other := otelLine([7]string{"ffffffffffffffffffffffffffffffff", "3333333333333333", "", "1", "0", "1", ""})
	for _, c := range []struct {
		name          string
		gap           int // lines from the AI Gateway span to the SERVER span; < 0: the SERVER span first
		trace, parent string
		want          int // rows
	}{
		{"same line", 0, tr, caller, 1},
		{"extproc first", 3, tr, caller, 1},
		{"extproc first, at the edge", otelHoldUnits, tr, caller, 1},
		{"extproc first, too far", otelHoldUnits + 1, tr, caller, 2},
		{"server first", -1, tr, caller, 1},
		{"server first, at the edge", -otelHoldUnits, tr, caller, 1},
		{"server first, too far", -otelHoldUnits - 1, tr, caller, 2},
		{"another parent", 1, tr, "dddddddddddddddd", 2},
		{"another trace", 1, "00000000000000000000000000000001", caller, 2},
		{"no parent", 1, tr, "", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			first, second := line(extproc(c.trace, c.parent)), line(server)
			gap := c.gap
			if gap < 0 {
				first, second, gap = second, first, -gap
			}
			lines := []string{first}
			for range gap - 1 {
				lines = append(lines, other)
			}
			if gap == 0 {
				lines[0] = line(extproc(c.trace, c.parent), server)
			} else {
				lines = append(lines, second)
			}
			rows, rejects := runOTelDoc(t, gatewayParser(t), []byte(strings.Join(lines, "\n")))
			if len(rejects) != 0 || len(rows) != c.want {
				t.Fatalf("%d rows, want %d; rejects %v: %+v", len(rows), c.want, rejects, rows)
			}
			for _, r := range rows {
				// The model and tokens are the AI Gateway span's: on its own
				// row, or on the SERVER span's when they were paired.
				withModel := r.Model == "m" && r.PromptTokens != nil && *r.PromptTokens == 3 && *r.OutputTokens == 4
				if r.TTFTNS != nil || r.Attempts != nil || withModel != (c.want == 1 || r.Status == 0) {
					t.Errorf("row: %+v", r)
				}
				switch r.Status {
				case 200: // the SERVER span's row
					if r.End-r.Start != 1000e6 {
						t.Errorf("server row: %+v", r)
					}
				case 0: // the AI Gateway span's own
					if c.want == 1 || r.End-r.Start != 985e6 || r.Route != "" || r.Upstream != "" {
						t.Errorf("extproc row: %+v", r)
					}
				default:
					t.Errorf("status %d", r.Status)
				}
			}
		})
	}
}

// otelSpans is the spans array's contents of an otelLine.
func otelSpans(line string) string {
	return strings.TrimSuffix(strings.SplitN(line, `"spans":[`, 2)[1], `]}]}]}`)
}

// Children waiting for a parent, parents waiting for children and the
// spans remembered to drop repeats stay within their bounds.
func TestOTelPairerBounds(t *testing.T) {
	t.Parallel()
	emitted := 0
	p := newSpanPairer(func(u *heldUnit[int]) error { emitted += len(u.parents); return nil })
	var k spanKey
	next := func() spanKey {
		for i := len(k) - 1; i >= 0; i-- {
			if k[i]++; k[i] != 0 {
				break
			}
		}
		return k
	}
	for range otelMaxOrphans + 1000 {
		s := &pendingSpan[int]{key: next(), parent: next(), hasParent: true}
		p.dup(s.key, ptrace.SpanKindClient)
		p.child(s)
	}
	if p.nOrphan > otelMaxOrphans || len(p.orphans) > otelMaxOrphans {
		t.Errorf("%d orphans in %d keys", p.nOrphan, len(p.orphans))
	}
	for range 3 {
		u := &heldUnit[int]{line: 1}
		for range otelMaxPending / 2 {
			s := &pendingSpan[int]{key: next()}
			p.dup(s.key, ptrace.SpanKindServer)
			p.parent(u, s)
		}
		if err := p.hold(u); err != nil {
			t.Fatal(err)
		}
		if p.pending > otelMaxPending || len(p.parents) > otelMaxPending {
			t.Errorf("%d pending parents, %d in the map", p.pending, len(p.parents))
		}
	}
	if len(p.seen) > otelSeenWindow || len(p.seenQ) > otelSeenWindow {
		t.Errorf("%d seen spans", len(p.seen))
	}
	p.flush()
	if emitted != 3*(otelMaxPending/2) || len(p.parents) != 0 || p.pending != 0 {
		t.Errorf("flush: emitted %d, %d left", emitted, len(p.parents))
	}
}

func TestOTelSniff(t *testing.T) {
	t.Parallel()
	otlp := otelLine([7]string{"0123456789abcdef0123456789abcdef", "1111111111111111", "", "2", "0", "1", otelMethod})
	for _, c := range []struct {
		tier  record.Tier
		first string
		want  string
	}{
		{record.Gateway, otlp, formatOTelGateway},
		{record.Gateway, `{"resourceSpans": [`, formatOTelGateway},
		{record.Client, otlp, formatOTelClient},
		{record.Client, `{"resourceSpans":[{"resource"`, formatOTelClient},
		{record.Server, otlp, formatVLLMOTLP},
		{record.Client, `{"request_id":"r1","start":1796032800,"end":1796032801}`, formatNative},
	} {
		f, err := record.SniffFormat(c.tier, []byte(c.first))
		if err != nil || f.Name != c.want {
			t.Errorf("%s %.40s: got %v, %v; want %s", c.tier, c.first, f, err, c.want)
		}
	}
	for _, other := range []string{`{"request_id":"r1"}`, `[2016-04-15T20:17:00.310Z] "POST /x HTTP/2" 204`, `{`} {
		if sniffOTLPTraces([]byte(other)) {
			t.Errorf("claimed %q", other)
		}
	}
}

// Lines of the pre-1.0 OTLP shape are read like current ones.
func TestOTelInstrumentationLibrarySpans(t *testing.T) {
	t.Parallel()
	span := func(id string) string {
		return `{"traceId":"0123456789abcdef0123456789abcdef","spanId":"` + id + `","name":"x","kind":"SPAN_KIND_SERVER","startTimeUnixNano":"1796032800000000000","endTimeUnixNano":"1796032801000000000","attributes":[` + otelMethod + `]}`
	}
	in := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{"name":"new"},"spans":[` + span("1111111111111111") +
		`]}],"instrumentationLibrarySpans":[{"instrumentationLibrary":{"name":"old"},"spans":[` + span("2222222222222222") + `]}]}]}`
	td, err := decodeOTLPTraces([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	sss := td.ResourceSpans().At(0).ScopeSpans()
	if sss.Len() != 2 || sss.At(1).Scope().Name() != "old" || sss.At(1).Spans().At(0).Kind() != ptrace.SpanKindServer {
		t.Fatalf("got %d scopes", sss.Len())
	}
	// Text that only looks like the old member name is not rewritten.
	in = strings.Replace(in, `"name":"x"`, `"name":"\"instrumentationLibrarySpans\":[]"`, 1)
	if _, err := decodeOTLPTraces([]byte(in)); err != nil {
		t.Fatal(err)
	}
}

// A line longer than MaxLineBytes is rejected alone; CRLF lines and blank
// lines are read as the file exporter's.
func TestOTelLongLine(t *testing.T) {
	t.Parallel()
	ok := otelLine([7]string{"0123456789abcdef0123456789abcdef", "1111111111111111", "", "2", "0", "1", otelMethod})
	ok2 := strings.Replace(ok, "1111111111111111", "2222222222222222", 1)
	long := `{"resourceSpans":[` + strings.Repeat(" ", record.MaxLineBytes) + `]}`
	in := ok + "\r\n\r\n" + long + "\n" + ok2 + "\r\n"
	rows, rejects := runOTelDoc(t, gatewayParser(t), []byte(in))
	if len(rows) != 2 || len(rejects) != 1 || record.Kind(rejects[0]) != "line_too_long" || rejects[0].Line != 3 {
		t.Fatalf("rows %d, rejects %v", len(rows), rejects)
	}
	if rows[0].SourceLine != 1 || rows[1].SourceLine != 4 {
		t.Errorf("lines %d, %d", rows[0].SourceLine, rows[1].SourceLine)
	}
	if len(rejects[0].Raw) > record.RawLimit {
		t.Errorf("kept %d bytes of the long line", len(rejects[0].Raw))
	}
}

func TestOTelOptionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "g.jsonl")
	os.WriteFile(path, []byte(otelLine()+"\n"), 0o644)
	for _, bad := range []string{"x request id", `a"b`, "a\tb"} {
		_, err := ingest.Run(context.Background(), ingest.Options{
			Inputs:        []ingest.Input{{Tier: record.Gateway, Pattern: path}},
			Out:           filepath.Join(dir, "out"),
			FormatOptions: map[string]string{"otel-request-id": bad},
		})
		if err == nil || !strings.Contains(err.Error(), "--otel-request-id") {
			t.Errorf("otel-request-id %q: got %v", bad, err)
		}
	}
	// Empty, as a command line passes an unset flag, is the default.
	if _, err := ingest.Run(context.Background(), ingest.Options{
		Inputs:        []ingest.Input{{Tier: record.Gateway, Pattern: path}},
		Out:           filepath.Join(dir, "out"),
		FormatOptions: map[string]string{"otel-request-id": "", "otel-gateway-service": ""},
	}); err != nil {
		t.Errorf("empty options: %v", err)
	}
}

// No row of the OTel cases holds text of a prompt or of a status message:
// every one of them has the word "secret", and no decoded value may.
func TestOTelNoPromptText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, file string }{
		{"../../testdata/ingest/otel_gateway.txtar", "gw.jsonl"},
		{"../../testdata/ingest/otel_client.txtar", "cl.jsonl"},
		{"../../testdata/ingest/otel_streaming.txtar", "cl.jsonl"},
		{"../../testdata/ingest/otel_streaming.txtar", "gw.jsonl"},
		{"../../testdata/ingest/otel_openinference.txtar", "cl.jsonl"},
		{"../../testdata/ingest/otel_openinference.txtar", "gw.jsonl"},
	} {
		data := otelFixture(t, c.path, c.file)
		if !bytes.Contains(data, []byte("secret")) {
			t.Fatalf("%s has no secret to keep", c.file)
		}
		gw, grej := runOTelDoc(t, gatewayParser(t), bytes.Clone(data))
		cl, crej := runOTelDoc(t, clientParser(t), bytes.Clone(data))
		for _, v := range []any{gw, cl, grej, crej} {
			if s := fmt.Sprintf("%+v", v); strings.Contains(s, "secret") {
				t.Errorf("%s: user text in a row or a reject: %s", c.file, s)
			}
		}
		// What rejects.jsonl keeps of the rejected units holds none either.
		dir := t.TempDir()
		in := filepath.Join(dir, c.file)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct {
			tier   record.Tier
			format string
		}{{record.Gateway, formatOTelGateway}, {record.Client, formatOTelClient}} {
			out := filepath.Join(dir, "out-"+string(f.tier))
			if _, err := ingest.Run(context.Background(), ingest.Options{Inputs: []ingest.Input{{Tier: f.tier, Format: f.format, Pattern: in}}, Out: out}); err != nil {
				t.Fatal(err)
			}
			kept, err := os.ReadFile(filepath.Join(out, "rejects.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(kept, []byte("secret")) {
				t.Errorf("%s as %s: user text in a kept reject: %s", c.file, f.format, kept)
			}
		}
	}
}

func otelFixture(t testing.TB, path, file string) []byte {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == file {
			return f.Data
		}
	}
	t.Fatalf("%s has no file %s", path, file)
	return nil
}

func otelSeeds(f *testing.F) {
	for _, c := range []struct{ path, file string }{
		{"../../testdata/ingest/otel_gateway.txtar", "gw.jsonl"},
		{"../../testdata/ingest/otel_gateway.txtar", "gw2.json"},
		{"../../testdata/ingest/otel_client.txtar", "cl.jsonl"},
		{"../../testdata/ingest/options/otel_options.txtar", "gw.jsonl"},
		{"../../testdata/ingest/otel_streaming.txtar", "cl.jsonl"},
		{"../../testdata/ingest/otel_streaming.txtar", "gw.jsonl"},
		{"../../testdata/ingest/otel_openinference.txtar", "cl.jsonl"},
		{"../../testdata/ingest/otel_openinference.txtar", "gw.jsonl"},
	} {
		data := otelFixture(f, c.path, c.file)
		f.Add(data)
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(l) < 4096 {
				f.Add(l)
			}
		}
	}
	for _, name := range []string{"openllmetry_openai_stream.json", "openinference_openai_stream.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "real", "otel", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzOTelGateway runs otel-gateway over any input. Its seeds are fixture
// files of several KiB: run it with -fuzzminimizetime 2s.
func FuzzOTelGateway(f *testing.F) {
	otelSeeds(f)
	parse := gatewayParser(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := runOTelDoc(t, parse, in)
		for i := range rows {
			r := &rows[i]
			if r.Format != formatOTelGateway || r.Start == 0 || r.SourceLine < 1 {
				t.Fatalf("row without a format, a start or a line: %+v", r)
			}
			if r.End != 0 && r.End < r.Start || r.UpstreamEnd != 0 && r.UpstreamEnd < r.UpstreamStart {
				t.Fatalf("an end before its start: %+v", r)
			}
			if (r.UpstreamStart != 0) != (r.Attempts != nil) || r.Attempts != nil && *r.Attempts < 1 {
				t.Fatalf("upstream times without attempts: %+v", r)
			}
			if r.TTFTNS != nil && (*r.TTFTNS < 0 || r.Start > 1<<62-*r.TTFTNS) {
				t.Fatalf("a TTFT out of range: %+v", r)
			}
		}
	})
}

// FuzzOTelClient runs otel-client over any input; see FuzzOTelGateway.
func FuzzOTelClient(f *testing.F) {
	otelSeeds(f)
	parse := clientParser(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := runOTelDoc(t, parse, in)
		for i := range rows {
			r := &rows[i]
			if r.Format != formatOTelClient || r.Start == 0 || r.SourceLine < 1 {
				t.Fatalf("row without a format, a start or a line: %+v", r)
			}
			if r.End != 0 && r.End < r.Start || r.FirstToken != 0 && r.FirstToken < r.Start {
				t.Fatalf("a time before the start: %+v", r)
			}
			if (r.FirstToken != 0) != (r.TTFTNS != nil && *r.TTFTNS >= 0) {
				t.Fatalf("first token without its TTFT: %+v", r)
			}
		}
	})
}

// FuzzOTelPairing builds files of server, upstream and other spans spread
// over lines from the fuzzer's bytes, and checks the pairing: one row per
// distinct SERVER span whatever the order, a repeated span changes nothing,
// no more attempts than the server has children, and a child in the same
// line as its server or in one of the otelHoldUnits lines after it is
// always paired.
func FuzzOTelPairing(f *testing.F) {
	f.Add([]byte{0, 1, 1, 7, 0, 1, 2, 9, 3, 3, 7, 1, 1})
	f.Add([]byte{1, 1, 7, 7, 7, 0, 2, 7, 0, 0, 1, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 400 {
			return
		}
		type srv struct {
			line     int
			children map[string]int // span ID → line
		}
		servers := map[string]*srv{} // span ID → server
		var serverIDs []string
		var lines [][]string
		cur := []string{}
		var emitted []string
		id := 0
		newID := func() string { id++; return fmt.Sprintf("%016x", id) }
		tr := "0123456789abcdef0123456789abcdef"
		for i := 0; i < len(ops); i++ {
			switch op := ops[i] % 8; op {
			case 0, 5: // a server span
				sid := newID()
				servers[sid] = &srv{line: len(lines), children: map[string]int{}}
				serverIDs = append(serverIDs, sid)
				s := [7]string{tr, sid, "", "2", "0", "100", otelMethod}
				cur = append(cur, strings.TrimSuffix(strings.SplitN(otelLine(s), `"spans":[`, 2)[1], `]}]}]}`))
			case 1, 4: // an upstream span of a server, earlier or later
				var parent string
				if i+1 < len(ops) {
					i++
					if n := int(ops[i]); n < len(serverIDs) {
						parent = serverIDs[n]
					}
				}
				sid := newID()
				if parent == "" {
					parent = fmt.Sprintf("%016x", 1<<40+int(ops[i]))
				} else {
					servers[parent].children[sid] = len(lines)
				}
				s := [7]string{tr, sid, parent, "3", "10", "90", `{"key":"server.address","value":{"stringValue":"up"}}`}
				cur = append(cur, strings.TrimSuffix(strings.SplitN(otelLine(s), `"spans":[`, 2)[1], `]}]}]}`))
			case 2: // an internal span
				s := [7]string{tr, newID(), "", "1", "0", "1", ""}
				cur = append(cur, strings.TrimSuffix(strings.SplitN(otelLine(s), `"spans":[`, 2)[1], `]}]}]}`))
			case 3: // a span seen before, again
				if len(emitted) > 0 {
					cur = append(cur, emitted[int(ops[i])%len(emitted)])
				}
			default: // the end of a line
				lines = append(lines, cur)
				cur = nil
			}
			if len(cur) > 0 {
				emitted = append(emitted, cur[len(cur)-1])
			}
		}
		lines = append(lines, cur)
		// Children placed before their server in the list above are in fact
		// placed later: their parent ID was drawn from servers made so far.
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(`{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[`)
			b.WriteString(strings.Join(l, ","))
			b.WriteString("]}]}]}\n")
		}
		rows, rejects := runOTelDoc(t, gatewayParser(t), []byte(b.String()))
		if len(rejects) != 0 {
			t.Fatalf("rejects: %v", rejects)
		}
		if len(rows) != len(servers) {
			t.Fatalf("%d rows for %d server spans", len(rows), len(servers))
		}
		for _, r := range rows {
			if r.TraceID != tr {
				t.Fatalf("trace ID %q", r.TraceID)
			}
		}
		// Rows come out in line order per line; match them to servers by
		// line and count.
		byLine := map[int64][]*record.GatewayRow{}
		for i := range rows {
			byLine[rows[i].SourceLine] = append(byLine[rows[i].SourceLine], &rows[i])
		}
		for _, s := range servers {
			if len(byLine[int64(s.line)+1]) == 0 {
				t.Fatalf("no row on line %d", s.line+1)
			}
		}
		for _, sid := range serverIDs {
			s := servers[sid]
			mustPair := false
			for _, l := range s.children {
				if l >= s.line && l-s.line <= otelHoldUnits {
					mustPair = true
				}
			}
			row := byLine[int64(s.line)+1][0]
			byLine[int64(s.line)+1] = byLine[int64(s.line)+1][1:]
			if row.Attempts != nil && int(*row.Attempts) > len(s.children) {
				t.Fatalf("%d attempts for %d children", *row.Attempts, len(s.children))
			}
			if mustPair && row.Attempts == nil {
				t.Fatalf("server %s on line %d: a child in reach was not paired: %v", sid, s.line+1, s.children)
			}
		}
	})
}

// A gzip file cut short keeps every unit read before the cut, the held
// ones included, and records the error.
func TestOTelTruncatedGzip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var plain bytes.Buffer
	for i := range 3000 {
		tr := fmt.Sprintf("%032x", i+1)
		plain.WriteString(otelLine(
			[7]string{tr, "1111111111111111", "", "2", fmt.Sprint(i), fmt.Sprint(i + 5), otelMethod + "," + otelStatus},
			[7]string{tr, "2222222222222222", "1111111111111111", "3", fmt.Sprint(i + 1), fmt.Sprint(i + 4), `{"key":"server.address","value":{"stringValue":"up"}}`},
		) + "\n")
	}
	gz := gzipBytes(t, plain.Bytes())
	path := filepath.Join(dir, "g.jsonl.gz")
	os.WriteFile(path, gz[:len(gz)*3/4], 0o644)
	out := filepath.Join(dir, "out")
	m, err := ingest.Run(context.Background(), ingest.Options{Inputs: []ingest.Input{{Tier: record.Gateway, Pattern: path}}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Files[0]
	if f.Error == "" || f.Format != formatOTelGateway {
		t.Errorf("no error recorded for a truncated gzip: %+v", f)
	}
	if f.Rows < 100 || f.Rows >= 3000 || f.Rows != f.Decoded {
		t.Errorf("rows before the cut: %d rows from %d decoded lines", f.Rows, f.Decoded)
	}
	// Every whole line that came out of the cut stream is a unit.
	zr, err := gzip.NewReader(bytes.NewReader(gz[:len(gz)*3/4]))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(zr)
	if whole := int64(bytes.Count(got, []byte{'\n'})); f.Lines < whole {
		t.Errorf("%d units from %d whole lines read", f.Lines, whole)
	}
	checkAccounting(t, m)
	rows := rowtext.Table[record.GatewayRow](t, out, record.Gateway, dir)
	if n := strings.Count(rows, "upstream=up"); n != int(f.Rows) {
		t.Errorf("%d of %d rows paired", n, f.Rows)
	}
}

func gzipBytes(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkAccounting checks that every line of every file of m is accounted for.
func checkAccounting(t *testing.T, m *ingest.Manifest) {
	t.Helper()
	for _, f := range m.Files {
		if f.Lines != f.Decoded+f.Rejected+f.Duplicates+f.Blank {
			t.Errorf("%s: lines %d != decoded %d + rejected %d + duplicates %d + blank %d",
				f.Path, f.Lines, f.Decoded, f.Rejected, f.Duplicates, f.Blank)
		}
	}
}

// Only the top-level "stream" member of llm.invocation_parameters says a
// stream; a "stream" nested in another member, another case of the name,
// or a missing or null member says nothing; a value that is not a JSON
// object, or a stream that is not a boolean, is an error that quotes
// nothing of the value.
func TestOpenInferenceStreamed(t *testing.T) {
	t.Parallel()
	yes, no := true, false
	for _, c := range []struct {
		params string
		want   *bool
		bad    bool
	}{
		{`{"model": "m", "stream": true}`, &yes, false},
		{` {"stream":false,"temperature":0.2}`, &no, false},
		{`{"model": "m"}`, nil, false},
		{`{"stream": null}`, nil, false},
		{`{"Stream": true}`, nil, false},
		{`{"response_format": {"stream": true}, "tools": [{"stream": true}]}`, nil, false},
		{``, nil, false},
		{`{"stream": "true secret"}`, nil, true},
		{`{"stream": 1}`, nil, true},
		{`stream=true secret`, nil, true},
		{`["stream", true]`, nil, true},
		{`{"stream": true, "secret": `, nil, true},
	} {
		a := pcommon.NewMap()
		a.PutStr("llm.invocation_parameters", c.params)
		got, err := openInferenceStreamed(a)
		if (err != nil) != c.bad || (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s: got %v, %v; want %v, error %v", c.params, got, err, c.want, c.bad)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error quotes the value: %v", c.params, err)
		}
	}
	a := pcommon.NewMap()
	a.PutInt("llm.invocation_parameters", 1)
	if _, err := openInferenceStreamed(a); err == nil {
		t.Error("an int attribute: no error")
	}
	if got, err := openInferenceStreamed(pcommon.NewMap()); got != nil || err != nil {
		t.Errorf("absent: %v, %v", got, err)
	}
}
