package formats

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// A bad format string stops the run before anything is written.
func TestFormatOptionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for opts, want := range map[[2]string]string{
		{"envoy-format", "%START_TIME% %DURATION"}:                   "--envoy-format: envoy format at offset 13: %DURATION is not closed by '%'",
		{"envoy-format", "%REQ(X-REQUEST-ID)%%REQ(:PATH)%"}:          "cannot be split",
		{"envoy-format", "%START_TIME(%Q)% %REQ(X-REQUEST-ID)%"}:     "%Q is not a supported time specifier",
		{"envoy-format", "%COMMON_DURATION(DS_RX_BEG:US_TX_BEG:s)%"}: `precision "s" is not ms, us or ns`,
	} {
		_, err := ingest.Run(context.Background(), ingest.Options{
			Inputs:        []ingest.Input{{Tier: record.Gateway, Pattern: "../../testdata/ingest/native.txtar"}},
			Out:           filepath.Join(dir, "out"),
			FormatOptions: map[string]string{opts[0]: opts[1]},
		})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s %q: got %v, want %q", opts[0], opts[1], err, want)
		}
	}
}

// decodeWith runs a line parser over input as the pipeline does and checks
// the line accounting.
func decodeWith(t testing.TB, p record.LineParser[record.GatewayRow], input []byte) (rows []record.GatewayRow, rejects []*record.ParseError) {
	t.Helper()
	d := ingest.NewLineDecoder(p, bytes.NewReader(input), "in.log")
	for {
		var row record.GatewayRow
		err := d.Next(&row)
		if err == io.EOF {
			break
		}
		var pe *record.ParseError
		if errors.As(err, &pe) {
			rejects = append(rejects, pe)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	c, _ := ingest.Counts(d)
	if got := c.Decoded + int64(len(rejects)) + c.Duplicates + c.Blank; got != c.Lines {
		t.Fatalf("lines %d != decoded %d + rejected %d + duplicates %d + blank %d", c.Lines, c.Decoded, len(rejects), c.Duplicates, c.Blank)
	}
	return rows, rejects
}

func TestCompileEnvoyFormat(t *testing.T) {
	t.Parallel()
	f, err := compileEnvoyFormat(`[%START_TIME(%s.%3f)%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH):20% %PROTOCOL%" 100%% %COMMON_DURATION(US_TX_BEG:US_RX_END:us)%%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% %DYNAMIC_METADATA(io.envoy.ai_gateway:llm_input_token)% %FOO_BAR(x)%\n`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range f.tmpl.parts {
		if p.field < 0 {
			got = append(got, "lit:"+string(p.lit))
			continue
		}
		op := f.ops[p.field]
		got = append(got, "op:"+envoyOpName(&op))
	}
	want := []string{"lit:[", "op:START_TIME(%s.%3f)", `lit:] "`, "op:REQ(:METHOD)", "lit: ",
		"op:REQ(X-ENVOY-ORIGINAL-PATH?:PATH)", "lit: ", "op:PROTOCOL", `lit:" 100% `,
		"op:COMMON_DURATION(US_TX_BEG:US_RX_END:us)", "op:RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)", "lit: ",
		"op:DYNAMIC_METADATA(io.envoy.ai_gateway:llm_input_token)", "lit: ", "op:FOO_BAR(x)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("parts:\n got %q\nwant %q", got, want)
	}
	roles := map[string]envoyRole{}
	for _, op := range f.ops {
		roles[envoyOpName(&op)] = op.role
	}
	for name, want := range map[string]envoyRole{
		"START_TIME(%s.%3f)": erStart, "REQ(:METHOD)": erOpaque, "REQ(X-ENVOY-ORIGINAL-PATH?:PATH)": erPath,
		"COMMON_DURATION(US_TX_BEG:US_RX_END:us)": erEdge, "RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)": erEdge,
		"DYNAMIC_METADATA(io.envoy.ai_gateway:llm_input_token)": erInputTokens, "FOO_BAR(x)": erOpaque,
	} {
		if roles[name] != want {
			t.Errorf("%s: role %d, want %d", name, roles[name], want)
		}
	}
	cd := f.ops[4]
	if cd.from != ptUSTxBeg || cd.to != ptUSRxEnd || cd.unit != 1e3 {
		t.Errorf("COMMON_DURATION: %+v", cd)
	}
	for _, bad := range []string{"", "no operators", "%", "%lower%", "%REQ(X", "%REQ(X)", "%REQ(X):%", "%A%%B%x",
		"%START_TIME_LOCAL(%Y-%m-%d %H:%M:%S)%"} {
		if _, err := compileEnvoyFormat(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
	// A number directly followed by a field ends where its digits end.
	if _, err := compileEnvoyFormat("%DURATION%%REQ(X-REQUEST-ID)%"); err != nil {
		t.Error(err)
	}
}

// Quoted values may hold spaces and quotes, but end at the first quote
// that the format's next literal (`" "`) follows: a value holding `" "`
// cannot be told from one more quoted field than the format has, which
// is by far the likelier (Envoy's default format with %UPSTREAM_CLUSTER%
// appended), so such a line matches nothing rather than shifting values.
func TestTemplateQuoting(t *testing.T) {
	t.Parallel()
	f, err := compileEnvoyFormat(`[%START_TIME%] "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" %DURATION%`)
	if err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		`[2026-01-15T10:00:00.004Z] "curl/8 (x; y)" "r1" 12`:        "curl/8 (x; y)|r1|12",
		`[2026-01-15T10:00:00.004Z] "evil" "quoted" agent" "r2" 13`: "no match",
		`[2026-01-15T10:00:00.004Z] "a "quoted" agent" "r2" 13`:     `a "quoted" agent|r2|13`,
		`[2026-01-15T10:00:00.004Z] "" "-" -`:                       "|-|-",
		`[2026-01-15T10:00:00.004Z] "a" "r3" 1x`:                    "no match",
		`[2026-01-15T10:00:00.004Z] "a" "r3"`:                       "no match",
		`[not a time] "a" "r3" 1`:                                   "no match",
	} {
		vals := make([][]byte, len(f.ops))
		got := "no match"
		if f.matchText([]byte(line), vals) {
			var parts []string
			for _, v := range vals[1:] {
				parts = append(parts, string(v))
			}
			got = strings.Join(parts, "|")
		}
		if got != want {
			t.Errorf("%s:\n got %q\nwant %q", line, got, want)
		}
	}
}

// Backtracking over a hostile line stays linear in its length.
func TestTemplateWorkBound(t *testing.T) {
	t.Parallel()
	line := []byte(`[2026-01-15T10:00:00.004Z] "POST /v1 HTTP/1.1" 200 - 1 2 3 4 "-" "` + strings.Repeat(`" "`, 1<<18) + `x`)
	p := newEnvoyParser(envoyDefaultConfig)
	start := time.Now()
	var q record.RowQueue[record.GatewayRow]
	if err := p.ParseLine(line, &q); err == nil {
		t.Fatal("hostile line matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a %d-byte line took %v", len(line), d)
	}
}

func TestStrftime(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ layout, in, want string }{
		{"%s.%3f", "1768471200.004", "2026-01-15T10:00:00.004Z"},
		{"%s.%6f", "1768471200.004200", "2026-01-15T10:00:00.0042Z"},
		{"%s", "1768471200", "2026-01-15T10:00:00Z"},
		{"%Y-%m-%dT%H:%M:%S%z", "2026-01-15T11:00:00+0100", "2026-01-15T10:00:00Z"},
		{"%Y/%m/%dT%H:%M:%S.%9f", "2026/01/15T10:00:00.123456789", "2026-01-15T10:00:00.123456789Z"},
		{"%F %T", "2026-01-15 10:00:00", "2026-01-15T10:00:00Z"},
		{"%Y-%m-%dT%H:%M:%E3SZ", "2026-01-15T10:00:00.250Z", "2026-01-15T10:00:00.25Z"},
		{"%d/%b/%Y:%H:%M:%S %z", "15/Jan/2026:10:00:02 -0500", "2026-01-15T15:00:02Z"},
		{"%a, %d %b %Y %H:%M:%S %Z", "Thu, 15 Jan 2026 10:00:02 GMT", "2026-01-15T10:00:02Z"},
		{"%F %T", "2026-02-30 10:00:00", "error"},
		{"%s", "1768471200000", "error"},
		{"%F", "2026-01-15 extra", "error"},
	} {
		l, err := compileStrftime(c.layout)
		if err != nil {
			t.Fatal(err)
		}
		got := "error"
		if ns, err := l.parse([]byte(c.in)); err == nil {
			got = scan.FormatNS(ns)
		}
		if got != c.want {
			t.Errorf("%s %q: got %s, want %s", c.layout, c.in, got, c.want)
		}
	}
}

func TestParseScaledDecimal(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{
		"2144": 2144e6, "0": 0, "7.7": 7_700_000, "-3": -3e6, "0.0000001": 0, "1.5e3": 1500e6, "12.3456789": 12_345_678,
	} {
		if got, ok := parseScaledDecimal([]byte(in), 1e6); !ok || got != want {
			t.Errorf("%s ms: got %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1x", "9999999999999999999", "NaN", "1e400"} {
		if _, ok := parseScaledDecimal([]byte(bad), 1e6); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	if got, _ := parseScaledDecimal([]byte("2.145"), 1e9); got != 2_145_000_000 {
		t.Errorf("2.145 s: %d", got)
	}
}

func FuzzEnvoyFormatString(f *testing.F) {
	for _, s := range []string{envoyDefaultFormat, istioDefaultFormat, envoyGatewayDefaultFormat,
		`%START_TIME(%s.%6f)% %REQ(X-REQUEST-ID)% %COMMON_DURATION(DS_RX_BEG:US_RX_END:us)%`,
		`{"start":"%START_TIME%","d":"%DURATION%","n":{"x":"%REQ(X)%"}}`, "%%%", "%A(", "%A:9%", "%START_TIME(%"} {
		f.Add(s, `[2026-01-15T10:00:00.004Z] "POST /v1 HTTP/1.1" 200 - 1 2 3 4 "-" "ua" "r1" "h" "u:1"`)
	}
	f.Fuzz(func(t *testing.T, format, line string) {
		cfg, err := compileEnvoyConfig(format)
		if err != nil {
			return
		}
		p := newEnvoyParser(cfg)
		var q record.RowQueue[record.GatewayRow]
		p.ParseLine([]byte(line), &q)
	})
}
