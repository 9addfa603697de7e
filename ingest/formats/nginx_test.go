package formats

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/internal/rowtext"
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

func nginxRows(t testing.TB, format, id, input string) ([]record.GatewayRow, []*record.ParseError) {
	t.Helper()
	cfg, err := compileNginxConfig(format, id)
	if err != nil {
		t.Fatal(err)
	}
	return decodeWith(t, newNginxParser(cfg), []byte(input))
}

func TestNginxList(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                               "0 <nil>",
		"-":                              "1 <nil>",
		"0.205":                          "1 0.205",
		"0.003, 1.349":                   "2 1.349",
		"-, 0.152":                       "2 0.152",
		"0.152, -":                       "2 <nil>",
		"0.004 : 0.205":                  "2 0.205",
		"10.1.4.23:8000 : 10.1.9.9:8080": "2 10.1.9.9:8080",
		"a:1, b:2 : c:3, d:4":            "4 d:4",
		"unix:/run/u.sock":               "1 unix:/run/u.sock",
	} {
		n, last := nginxList([]byte(in))
		got := strings.Join([]string{itoa(n), string(last)}, " ")
		if last == nil {
			got = itoa(n) + " <nil>"
		}
		if got != want {
			t.Errorf("%q: got %s, want %s", in, got, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestNginxFormatString(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`$msec $request_id`:                                            `$msec $request_id|`,
		`log_format main '$msec '  '"$request_id"';`:                   `$msec "$request_id"|`,
		`log_format j escape=json '{"m":$msec,' '"r":"$request_id"}';`: `{"m":$msec,"r":"$request_id"}|json`,
		`escape=none "$msec \"$request_id\""`:                          `$msec "$request_id"|none`,
		`combined`:                                                     `combined|`,
	} {
		f, esc, err := nginxFormatString(src)
		if got := f + "|" + esc; err != nil || got != want {
			t.Errorf("%s: got %q %v, want %q", src, got, err, want)
		}
	}
	c, err := compileNginxConfig(`${remote_addr}-$request_id "$request" $status ${msec}x`, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"remote_addr", "request_id", "request", "status", "msec"}
	if strings.Join(c.names, " ") != strings.Join(want, " ") || c.vars[1] != nvRequestID || c.vars[4] != nvMsec {
		t.Errorf("names %v vars %v", c.names, c.vars)
	}
	for _, bad := range []string{"$request_id $", "$request_id ${x", "$request_id ${}", `'$request_id`, "escape=xml $request_id",
		"$request_uri$request_id"} {
		if _, err := compileNginxConfig(bad, ""); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

func TestNginxDerivation(t *testing.T) {
	t.Parallel()
	const format = `$request_id "$http_x_request_id" $msec $request_time "$request" $status "$upstream_addr" "$upstream_header_time" "$upstream_response_time" $hostname "$http_traceparent"`
	for _, c := range []struct {
		name, id, line string
		want           string // id start end upstream_start first_byte upstream_end attempts upstream
	}{
		{"one attempt", "", `own1 "cli1" 1768471202.149 2.145 "POST /v1/chat/completions?stream=true HTTP/1.1" 200 "10.1.4.23:8000" "0.007" "2.144" gw-1 "-"`,
			"cli1 00.004 02.149 00.005 00.012 02.149 1 10.1.4.23:8000"},
		{"retry in the group", "", `own2 "-" 1768471203.871 1.354 "POST /v1 HTTP/1.1" 200 "10.1.4.22:8000, 10.1.4.23:8000" "-, 0.152" "0.003, 1.349" gw-1 "-"`,
			"own2 02.517 03.871 02.522 02.674 03.871 2 10.1.4.23:8000"},
		{"internal redirect", "request_id", `own3 "cli3" 1768471204.210 0.210 "GET /a HTTP/1.1" 200 "10.1.4.23:8000 : 10.1.9.9:8080" "0.004 : 0.200" "0.004 : 0.205" gw-1 "-"`,
			"own3 04.000 04.210 04.005 04.205 04.210 2 10.1.9.9:8080"},
		{"no upstream", "", `own4 "cli4" 1768471205.000 0.001 "GET /health HTTP/1.1" 404 "-" "-" "-" gw-1 "-"`,
			"cli4 04.999 05.000 - - - - -"},
		{"rounding past the start", "", `own5 "cli5" 1768471206.000 0.100 "GET / HTTP/1.1" 200 "u:1" "0.050" "0.101" gw-1 "-"`,
			"cli5 05.900 06.000 05.900 05.950 06.000 1 u:1"},
		{"header only (client gone)", "", `own6 "cli6" 1768471207.000 0.300 "GET / HTTP/1.1" 499 "u:1" "-" "0.299" gw-1 "-"`,
			"cli6 06.700 07.000 06.701 - 07.000 1 u:1"},
	} {
		rows, rejects := nginxRows(t, format, c.id, c.line)
		if len(rejects) > 0 || len(rows) != 1 {
			t.Errorf("%s: %v", c.name, rejects)
			continue
		}
		r := rows[0]
		got := []string{r.RequestID}
		for _, ns := range []int64{r.Start, r.End, r.UpstreamStart, r.UpstreamFirstByte, r.UpstreamEnd} {
			if ns == 0 {
				got = append(got, "-")
				continue
			}
			s := strings.TrimSuffix(strings.TrimPrefix(scan.FormatNS(ns), "2026-01-15T10:00:"), "Z")
			if len(s) == 2 {
				s += "."
			}
			got = append(got, (s + "000")[:6])
		}
		if r.Attempts == nil {
			got = append(got, "-")
		} else {
			got = append(got, itoa(int(*r.Attempts)))
		}
		if r.Upstream == "" {
			got = append(got, "-")
		} else {
			got = append(got, r.Upstream)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, g, c.want)
		}
		if !strings.HasPrefix(r.Route, "/") || strings.Contains(r.Route, "?") || r.Gateway != "gw-1" || r.Format != "nginx" {
			t.Errorf("%s: %s", c.name, rowtext.Render(&r, ""))
		}
	}
	for id, want := range map[string]string{"http_x_request_id": "http_x_request_id: missing", "request_id": "request_id: missing", "": "request_id or http_x_request_id: missing"} {
		_, rejects := nginxRows(t, format, id, `- "-" 1768471205.000 0.001 "GET / HTTP/1.1" 200 "-" "-" "-" gw-1 "-"`)
		if len(rejects) != 1 || !strings.Contains(rejects[0].Error(), want) {
			t.Errorf("no id, %q: %v", id, rejects)
		}
	}
	rows, _ := nginxRows(t, format, "http_x_request_id", `own "a\x22b" 1768471205.000 0.001 "GET /x\x22y HTTP/1.1" 200 "-" "-" "-" gw-1 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"`)
	if len(rows) != 1 || rows[0].RequestID != `a"b` || rows[0].Route != `/x"y` || rows[0].TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("escapes: %+v", rows)
	}
}

func TestSniffNginx(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		`{"msec":1768471202.149,"request_id":"7c1e","request_time":2.145}`:                                                                              true,
		`{"msec":1768471202.149,"request_id":"7c1e"}`:                                                                                                   false,
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3"`:                        true,
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3" rid=7c1e rt=2.1`:        false,
		`10.0.0.15 - - [15/Jnu/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3"`:                        false,
		`{"request_id":"r1","start":"2026-11-30T10:00:02.5Z","upstream_start":"2026-11-30T10:00:02.51Z","end":"2026-11-30T10:00:04.41Z"}`:               false,
		`[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21" "locations" "tcp://10.0.2.1:80"`: false,
	} {
		if got := sniffNginx([]byte(line)); got != want {
			t.Errorf("sniffNginx(%s) = %v", line, got)
		}
	}
}

func FuzzNginx(f *testing.F) {
	const format = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rid=$request_id xrid="$http_x_request_id" msec=$msec rt=$request_time ua="$upstream_addr" us="$upstream_status" uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`
	cfg, err := compileNginxConfig(format, "")
	if err != nil {
		f.Fatal(err)
	}
	ingress, err := compileNginxConfig(`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time $upstream_status $req_id`, "")
	if err != nil {
		f.Fatal(err)
	}
	fuzzSeeds(f,
		`192.168.64.1 - - [07/Feb/2020:11:48:51 +0000] "POST /products HTTP/1.1" 200 59 "-" "curl/7.54.0" 89 0.001 [default-web-8080] [] 172.17.0.5:8080 59 0.000 200 529a007902362a5f51385a5fa7049884`,
		`192.168.64.1 - - [07/Feb/2020:11:49:50 +0000] "PATCHp /products/42 HTTP/1.1" 400 163 "-" "-" 0 0.000 [] [] - - - - 4c7d2079340e68353c7d0dfff00b904b`,
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "python-requests/2.32.3" rid=7c1e xrid="4f1c" msec=1768471202.149 rt=2.145 ua="10.1.4.23:8000" us="200" uct="0.000" uht="0.007" urt="2.144"`,
		`10.0.0.16 - - [15/Jan/2026:10:00:03 +0000] "POST /v1/chat/completions HTTP/1.1" 200 40960 "-" "p\x22y" rid=0d9e xrid="9a8b" msec=1768471203.871 rt=1.354 ua="10.1.4.22:8000, 10.1.4.23:8000" us="502, 200" uct="-, 0.001" uht="-, 0.152" urt="0.003, 1.349"`,
		`10.0.0.17 - - [15/Jan/2026:10:00:04 +0000] "POST /v1 HTTP/1.1" 200 512 "-" "curl/8.7.1" rid=1a2b xrid="-" msec=1768471204.210 rt=0.210 ua="10.1.4.23:8000 : 10.1.9.9:8080" us="404 : 200" uct="0.000 : 0.001" uht="0.004 : 0.200" urt="0.004 : 0.205"`,
		`{"msec":1768471202.149,"request_id":"7c1e","x_request_id":"","request":"POST /v1 HTTP/1.1","status":200,"request_time":2.145,"upstream_addr":"a:1, b:2","upstream_header_time":"-, 0.152","upstream_response_time":"0.003, 1.349"}`,
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, c := range []*nginxConfig{cfg, nginxDefaultConfig, ingress} {
			rows, _ := decodeWith(t, newNginxParser(c), in)
			for _, r := range rows {
				// Every row has its ID, but for a line of the combined
				// format, which logs none: that row is kept without one,
				// by design, and must have the time it logs.
				combined := c == nginxDefaultConfig && r.RequestID == ""
				if r.Format != formatNginx || r.RequestID == "" && !combined || combined && r.End == 0 {
					t.Fatalf("row without its required fields: %+v", r)
				}
				if r.UpstreamStart != 0 && (r.UpstreamStart > r.UpstreamEnd || r.Start != 0 && r.UpstreamStart < r.Start ||
					r.UpstreamFirstByte != 0 && (r.UpstreamFirstByte < r.UpstreamStart || r.UpstreamFirstByte > r.UpstreamEnd)) {
					t.Fatalf("upstream times out of order: %s", rowtext.Render(&r, ""))
				}
			}
		}
	})
}

// A bad log_format or request-ID choice stops the run before anything is
// written.
func TestNginxOptionErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for opts, want := range map[[2]string]string{
		{"nginx-format", "$remote_addr $ $status"}: "'$' not followed by a variable name",
		{"nginx-format", "$request_time $status"}:  "logs no request ID and no time",
		{"nginx-request-id", "trace_id"}:           "want auto, http_x_request_id or request_id",
		{"nginx-format", "'$msec $request_id"}:     "unterminated ' quote",
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
	// The choice must name a variable the format logs.
	if _, err := compileNginxConfig("$msec $request_id", "http_x_request_id"); err == nil {
		t.Error("http_x_request_id accepted for a format without it")
	}
}

// Unquoted upstream lists are not cut at their first space.
func TestNginxUnquotedLists(t *testing.T) {
	t.Parallel()
	rows, rejects := nginxRows(t, `$request_id $msec $request_time $upstream_response_time $upstream_header_time $upstream_addr`, "",
		"r1 1768471203.871 1.354 0.003, 1.349 -, 0.152 10.1.4.22:8000, 10.1.4.23:8000\n"+
			"r2 1768471204.210 0.210 0.004 : 0.205 0.004 : 0.200 10.1.4.23:8000 : 10.1.9.9:8080")
	if len(rejects) > 0 || len(rows) != 2 {
		t.Fatal(rows, rejects)
	}
	for i, want := range []string{"2026-01-15T10:00:02.522Z 2026-01-15T10:00:02.674Z 2 10.1.4.23:8000", "2026-01-15T10:00:04.005Z 2026-01-15T10:00:04.205Z 2 10.1.9.9:8080"} {
		r := rows[i]
		if got := scan.FormatNS(r.UpstreamStart) + " " + scan.FormatNS(r.UpstreamFirstByte) + " " + strconv.Itoa(int(*r.Attempts)) + " " + r.Upstream; got != want {
			t.Errorf("line %d: got %s, want %s", i+1, got, want)
		}
	}
}

// A line full of escaped quotes costs time linear in its length.
func TestNginxWorkBound(t *testing.T) {
	t.Parallel()
	cfg, err := compileNginxConfig(`$request_id "$http_user_agent" "$request" $status`, "")
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`r1 "` + strings.Repeat(`a\" "`, 1<<18) + `x`)
	start := time.Now()
	var q record.RowQueue[record.GatewayRow]
	if err := newNginxParser(cfg).ParseLine(line, &q); err == nil {
		t.Fatal("hostile line matched")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a %d-byte line took %v", len(line), d)
	}
}

func BenchmarkNginx(b *testing.B) {
	cfg, err := compileNginxConfig(`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rid=$request_id xrid="$http_x_request_id" msec=$msec rt=$request_time ua="$upstream_addr" us="$upstream_status" uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`, "")
	if err != nil {
		b.Fatal(err)
	}
	line := []byte(`10.0.0.16 - - [15/Jan/2026:10:00:03 +0000] "POST /v1/chat/completions HTTP/1.1" 200 40960 "-" "python-requests/2.32.3" rid=0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a xrid="9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" msec=1768471203.871 rt=1.354 ua="10.1.4.22:8000, 10.1.4.23:8000" us="502, 200" uct="-, 0.001" uht="-, 0.152" urt="0.003, 1.349"`)
	benchParser(b, newNginxParser(cfg), line)
}

// TestNginxCombinedEmptyFields: a combined line with its fields empty
// (found by FuzzNginx) is rejected, saying $time_local is missing, rather
// than kept as a row of nothing known; a valid combined line is still kept
// without an ID, as designed.
func TestNginxCombinedEmptyFields(t *testing.T) {
	t.Parallel()
	rows, rejects := nginxRows(t, "", "", `0 - 0 [] "0000" 000 00000 "0" "00000"`+"\n"+
		`10.0.0.15 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 61440 "-" "curl/8.7.1"`)
	if len(rejects) != 1 || rejects[0].Line != 1 || !strings.Contains(rejects[0].Error(), "time_local: missing required field") {
		t.Errorf("rejects %v, want line 1 for its missing time_local", rejects)
	}
	if len(rows) != 1 || rows[0].RequestID != "" || rows[0].End == 0 || rows[0].Status != 200 || rows[0].Route != "/v1/chat/completions" {
		t.Errorf("rows %+v, want the valid combined line, without an ID", rows)
	}
}

// A log_format with timings but no ID variable (the common
// `main` + rt=/uct=/uht=/urt= of NGINX's monitoring guide) is read: its rows
// are kept without a request ID, their times placed as for any format. End
// 12:00:02 (whole seconds: $time_local), start 2.145 s before, the last
// attempt's 2.140 s end at the log write, its headers 0.152 s after it
// started. A line of it without its time is rejected, naming $time_local.
func TestNginxTimingFormatWithoutID(t *testing.T) {
	t.Parallel()
	const format = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"`
	rows, rejects := nginxRows(t, format, "",
		`10.0.0.7 - - [01/Mar/2026:12:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 1540 "-" "python-requests/2.31" rt=2.145 uct="0.001" uht="0.152" urt="2.140"`+"\n"+
			`10.0.0.7 - - [] "POST /v1/chat/completions HTTP/1.1" 200 1540 "-" "python-requests/2.31" rt=2.145 uct="0.001" uht="0.152" urt="2.140"`)
	if len(rows) != 1 || len(rejects) != 1 {
		t.Fatalf("rows %v, rejects %v: want 1 and 1", rows, rejects)
	}
	r := rows[0]
	got := gatewayTimes(r)
	want := "|2026-03-01T11:59:59.855Z|2026-03-01T11:59:59.86Z|2026-03-01T12:00:00.012Z|2026-03-01T12:00:02Z|2026-03-01T12:00:02Z|/v1/chat/completions|200"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if e := rejects[0].Error(); !strings.Contains(e, "time_local") {
		t.Errorf("reject %q does not name time_local", e)
	}
}

// $req_id (ingress-nginx's, and the common map of $http_x_request_id
// falling back to $request_id) is the request ID when a line has one;
// "-" falls back to $http_x_request_id, then $request_id; explicit choices
// ignore it; a line of a format logging $req_id alone without one is
// rejected, naming it.
func TestNginxReqID(t *testing.T) {
	t.Parallel()
	const format = `$msec $req_id $http_x_request_id $request_id`
	rows, rejects := nginxRows(t, format, "",
		"1768471202.149 ing-1 client-1 own-1\n"+
			"1768471203.149 - client-2 own-2\n"+
			"1768471204.149 - - own-3")
	var got []string
	for _, r := range rows {
		got = append(got, r.RequestID)
	}
	if len(rejects) != 0 || strings.Join(got, " ") != "ing-1 client-2 own-3" {
		t.Errorf("auto: got %v (rejects %v), want ing-1 client-2 own-3", got, rejects)
	}
	for id, want := range map[string]string{"http_x_request_id": "client-1", "request_id": "own-1"} {
		rows, _ := nginxRows(t, format, id, "1768471202.149 ing-1 client-1 own-1")
		if len(rows) != 1 || rows[0].RequestID != want {
			t.Errorf("--nginx-request-id %s: got %v, want %s", id, rows, want)
		}
	}
	rows, rejects = nginxRows(t, `$msec $req_id`, "", "1768471202.149 -")
	if len(rows) != 0 || len(rejects) != 1 || !strings.Contains(rejects[0].Error(), "req_id") {
		t.Errorf("a line without its $req_id: rows %v, rejects %v; want it rejected, naming req_id", rows, rejects)
	}
}
