package ingest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
)

// lineTimes reads in through a chunker and returns the collector's time
// of each line the decoder sees (neither blank nor duplicate) as
// "N:RFC3339Nano" in UTC, "N:-" for none, and the prefix found.
func lineTimes(t *testing.T, in string) ([]string, string) {
	t.Helper()
	c := newChunker("f", strings.NewReader(in))
	var out []string
	walkLines(t, c, func(ch *chunk, n int64, _ []byte) {
		s := "-"
		if ch.times != nil {
			if ns := ch.times[n-ch.firstLine]; ns != 0 {
				s = time.Unix(0, ns).UTC().Format(time.RFC3339Nano)
			}
		}
		out = append(out, fmt.Sprintf("%d:%s", n, s))
	})
	name := ""
	if c.prefix != nil {
		name = c.prefix.name
	}
	return out, name
}

// TestCollectorLineTimes: the full time of a timestamp, CRI or RFC 3339
// syslog prefix goes with its line, read in UTC whatever offset it was
// written with; a CRI line joined from parts has its first part's time; a
// line without the prefix, and every line behind a prefix with no full
// time (compose, kubectl --prefix alone, syslog's "Dec 11 09:58:58"), has
// none.
func TestCollectorLineTimes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in, prefix string
		want             []string
	}{
		{"docker -t", "2026-11-30T10:00:00.123456789Z a\nnot prefixed\n2026-11-30T10:00:01.000000002Z b\n2026-11-30T10:00:02.000000003Z c\n",
			"timestamp", []string{"1:2026-11-30T10:00:00.123456789Z", "2:-", "3:2026-11-30T10:00:01.000000002Z", "4:2026-11-30T10:00:02.000000003Z"}},
		{"offset", "2026-11-30T11:00:00.500000000+01:00 a\n2026-11-29T23:30:00.000000001-10:30 b\n",
			"timestamp", []string{"1:2026-11-30T10:00:00.5Z", "2:2026-11-30T10:00:00.000000001Z"}},
		{"kubectl --prefix --timestamps", "[pod/v-1/v] 2026-11-30T10:00:00.000000007Z a\n[pod/v-1/v] 2026-11-30T10:00:00.000000008Z b\n",
			"kubectl+timestamp", []string{"1:2026-11-30T10:00:00.000000007Z", "2:2026-11-30T10:00:00.000000008Z"}},
		{"compose -t", "v-1  | 2026-11-30T10:00:00.100000000Z a\nv-1  | 2026-11-30T10:00:00.200000000Z b\n",
			"docker-compose+timestamp", []string{"1:2026-11-30T10:00:00.1Z", "2:2026-11-30T10:00:00.2Z"}},
		{"cri, partial lines", "2026-11-30T11:00:00.1+01:00 stdout F one\n" +
			"2026-11-30T10:00:00.2Z stdout P tw\n" +
			"2026-11-30T10:00:00.3Z stdout F o\n" +
			"2026-11-30T10:00:00.4Z stderr F three\n",
			"cri", []string{"1:2026-11-30T10:00:00.1Z", "2:2026-11-30T10:00:00.2Z", "4:2026-11-30T10:00:00.4Z"}},
		// Written ±hhmm, the offset is taken as no time rather than guessed.
		{"offset without colon", "2026-11-30T11:00:00.123456789+0100 a\n2026-11-30T11:00:00.123456789+0100 b\n",
			"timestamp", []string{"1:-", "2:-"}},
		{"compose", "v-1  | a\nv-1  | b\n", "docker-compose", []string{"1:-", "2:-"}},
		{"syslog", "Dec 11 09:58:58 h o[1]: a\nDec 11 09:58:59 h o[1]: b\n", "syslog", []string{"1:-", "2:-"}},
		// journalctl -o short-iso writes its offset ±hhmm, which is read
		// there: 09:58:58+01:00 is 08:58:58Z; -o short-iso-precise adds
		// microseconds, and 23:58:58.000001-10:00 is 09:58:58.000001Z of
		// the next day. Its header line has no prefix and no time.
		{"journalctl -o short-iso", "-- Logs begin at Mon 2026-12-07 09:00:00 CET. --\n" +
			"2026-12-07T09:58:58+0100 gpu-3 ollama[1543]: a\n2026-12-07T09:58:59+0100 gpu-3 ollama[1543]: b\n",
			"syslog", []string{"1:-", "2:2026-12-07T08:58:58Z", "3:2026-12-07T08:58:59Z"}},
		{"journalctl -o short-iso-precise", "2026-12-07T09:58:58.123456+0100 h o[1]: a\n2026-12-06T23:58:58.000001-1000 h o[1]: b\n",
			"syslog", []string{"1:2026-12-07T08:58:58.123456Z", "2:2026-12-07T09:58:58.000001Z"}},
		// Written with its colon (rsyslog's high-precision format), and
		// mixed with lines of journalctl's default: those have none.
		{"syslog, RFC 3339 and not", "2026-12-07T09:58:58.5+01:00 h o[1]: a\nDec  7 09:58:59 h o[1]: b\n2026-12-07T08:59:00Z h o[1]: c\n",
			"syslog", []string{"1:2026-12-07T08:58:58.5Z", "2:-", "3:2026-12-07T08:59:00Z"}},
		{"none", "a\nb\n", "", []string{"1:-", "2:-"}},
	} {
		got, prefix := lineTimes(t, c.in)
		if prefix != c.prefix || strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: prefix %q, times %q; want %q, %q", c.name, prefix, got, c.prefix, c.want)
		}
	}
}

// TestCollectorTimesOfRealDockerLog: Ollama's lines as docker logs
// --timestamps gave them (testdata/real/collectors/ollama_docker_timestamps_ov4.log,
// nine digits, Docker's padding of a microsecond clock) each take the
// time of their prefix, and that time is never before the one the line
// gives itself: the runtime reads a line once it is written. By hand,
// from the line's own time to its collector's: Ollama's
// "time=2025-04-01T08:18:00.513Z" (line 2) to 08:18:00.513604Z, 0.604 ms;
// "time=…:00.523Z" (line 4) to 08:18:00.524179Z, 1.179 ms; GIN's
// "2025/04/01 - 08:18:11" (line 5, to the second, the container's clock
// in UTC) to 08:18:11.233596Z, 233.596 ms; GIN's 08:18:30 (line 8) to
// 08:18:30.30708Z, 307.08 ms.
func TestCollectorTimesOfRealDockerLog(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "real", "collectors", "ollama_docker_timestamps_ov4.log"))
	if err != nil {
		t.Fatal(err)
	}
	got, prefix := lineTimes(t, string(data))
	want := []string{"1:2025-04-01T08:18:00.510156Z", "2:2025-04-01T08:18:00.513604Z", "3:2025-04-01T08:18:00.513761Z",
		"4:2025-04-01T08:18:00.524179Z", "5:2025-04-01T08:18:11.233596Z", "6:2025-04-01T08:18:11.234271Z",
		"7:2025-04-01T08:18:30.268609Z", "8:2025-04-01T08:18:30.30708Z"}
	if prefix != "timestamp" || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("prefix %q, times %q; want timestamp, %q", prefix, got, want)
	}
	for _, c := range []struct {
		line int
		own  time.Time // the line's own time
		lag  time.Duration
	}{
		{2, time.Date(2025, 4, 1, 8, 18, 0, 513e6, time.UTC), 604 * time.Microsecond},
		{4, time.Date(2025, 4, 1, 8, 18, 0, 523e6, time.UTC), 1179 * time.Microsecond},
		{5, time.Date(2025, 4, 1, 8, 18, 11, 0, time.UTC), 233596 * time.Microsecond},
		{8, time.Date(2025, 4, 1, 8, 18, 30, 0, time.UTC), 307080 * time.Microsecond},
	} {
		at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(got[c.line-1], fmt.Sprintf("%d:", c.line)))
		if err != nil {
			t.Fatal(err)
		}
		if lag := at.Sub(c.own); lag != c.lag {
			t.Errorf("line %d: collector's time %s after its own, want %s", c.line, lag, c.lag)
		}
	}
}

// realUntimedLogs are the real logs (testdata/real/DIR/SOURCE) of the
// formats whose lines have no full time of their own, each read with its
// format.
var realUntimedLogs = []struct{ file, format string }{
	{"vllm/issue_2731_received_no_prompt.log", "vllm-log"},
	{"vllm/issue_34503_apiserver_pid.log", "vllm-log"},
	{"vllm/issue_2484_aborted.log", "vllm-log"},
	{"vllm/issue_16361_v1_received.log", "vllm-log"},
	{"vllm/librechat_5116_aborted.log", "vllm-log"},
	{"vllm/issue_8031_added_requests.log", "vllm-log"},
	{"vllm/kserve_4470_wrapped.log", "vllm-log"},
	{"ollama-serve/issue_5816_windows_gin.log", "ollama-gin"},
	{"ollama-serve/issue_8983_serve_mixed.log", "ollama-gin"},
	{"ollama-serve/issue_2839_caret_colours.log", "ollama-gin"},
}

// collectorInstant is the time the test's collector gives line n (from
// 1): 2026-11-30T10:00:00Z + (n-1)·250ms + n ns.
func collectorInstant(n int) time.Time {
	return time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC).Add(time.Duration(n-1)*250*time.Millisecond + time.Duration(n))
}

// TestCollectorTimesOfRealLogs wraps the real vLLM request logs and
// Ollama's GIN lines in the prefix of kubectl logs --timestamps (UTC, nine
// fraction digits), in a CRI log file's (containerd's: the node's offset,
// +01:00 here, and the fraction without its trailing zeros) and in
// journalctl -o short-iso-precise's (microseconds, the offset +0100), and
// checks the arrival and end times each row takes from its line's prefix
// against times worked out by hand. A property holds too: the same lines without the prefix give the
// same rows but for those times, which are then NULL.
func TestCollectorTimesOfRealLogs(t *testing.T) {
	t.Parallel()
	type at struct {
		line int64
		col  string // arrival_time or end_time
		want string
	}
	// collectorInstant(n) by hand; every row not listed has neither time
	// ("Added request" rows take none).
	want := map[string][]at{
		"vllm/issue_2731_received_no_prompt.log": {
			{1, "arrival_time", "2026-11-30T10:00:00.000000001Z"},
			{2, "arrival_time", "2026-11-30T10:00:00.250000002Z"},
		},
		"vllm/issue_34503_apiserver_pid.log": {{4, "arrival_time", "2026-11-30T10:00:00.750000004Z"}},
		"vllm/issue_2484_aborted.log": {
			{1, "end_time", "2026-11-30T10:00:00.000000001Z"},
			{2, "end_time", "2026-11-30T10:00:00.250000002Z"},
			{3, "end_time", "2026-11-30T10:00:00.500000003Z"},
			{4, "end_time", "2026-11-30T10:00:00.750000004Z"},
			{5, "end_time", "2026-11-30T10:00:01.000000005Z"},
			{6, "end_time", "2026-11-30T10:00:01.250000006Z"},
			{7, "end_time", "2026-11-30T10:00:01.500000007Z"},
			{8, "end_time", "2026-11-30T10:00:01.750000008Z"},
			{9, "end_time", "2026-11-30T10:00:02.000000009Z"},
		},
		"vllm/issue_16361_v1_received.log": {{3, "arrival_time", "2026-11-30T10:00:00.500000003Z"}},
		"vllm/librechat_5116_aborted.log":  {{3, "end_time", "2026-11-30T10:00:00.500000003Z"}},
		// The POST /api/generate and /api/chat lines; /api/tags is no row.
		"ollama-serve/issue_5816_windows_gin.log": {
			{2, "end_time", "2026-11-30T10:00:00.250000002Z"},
			{4, "end_time", "2026-11-30T10:00:00.750000004Z"},
			{6, "end_time", "2026-11-30T10:00:01.250000006Z"},
		},
		"ollama-serve/issue_8983_serve_mixed.log": {
			{3, "end_time", "2026-11-30T10:00:00.500000003Z"},
			{4, "end_time", "2026-11-30T10:00:00.750000004Z"},
			{5, "end_time", "2026-11-30T10:00:01.000000005Z"},
		},
		"ollama-serve/issue_2839_caret_colours.log": {
			{14, "end_time", "2026-11-30T10:00:03.250000014Z"},
			{15, "end_time", "2026-11-30T10:00:03.500000015Z"},
		},
	}
	// res is the precision of the wrap's times: journalctl -o
	// short-iso-precise writes microseconds, so a wanted time is cut to
	// them (…00.250000002Z is …00.25Z), and an offset without its colon.
	wraps := []struct {
		name   string
		res    time.Duration
		prefix func(n int) string
	}{
		{"timestamp", 1, func(n int) string { return collectorInstant(n).Format("2006-01-02T15:04:05.000000000Z07:00") + " " }},
		{"cri", 1, func(n int) string {
			return collectorInstant(n).In(time.FixedZone("", 3600)).Format(time.RFC3339Nano) + " stdout F "
		}},
		{"syslog", time.Microsecond, func(n int) string {
			return collectorInstant(n).In(time.FixedZone("", 3600)).Format("2006-01-02T15:04:05.000000-0700") + " gpu-3 server[1543]: "
		}},
	}
	dir := t.TempDir()
	// What the manifest's collector_time says after the prefix's name.
	columns := map[string]string{"vllm-log": "arrival_time, end_time", "ollama-gin": "end_time"}
	for _, lg := range realUntimedLogs {
		file := lg.file
		name := strings.ReplaceAll(file, "/", "-")
		src := filepath.Join("..", "testdata", "real", file)
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		base := readInput(t, Input{Tier: Server, Format: lg.format, Pattern: src}, nil, dir, name+"-plain")
		if len(base.rows) == 0 {
			t.Fatalf("%s: no rows", file)
		}
		for _, r := range base.rows {
			if row := serverRowOf(t, r.json); row.Arrival != 0 || row.End != 0 {
				t.Errorf("%s:%d without a prefix: times %d %d, want none", file, r.line, row.Arrival, row.End)
			}
		}
		if base.stats.CollectorTime != "" {
			t.Errorf("%s without a prefix: collector_time %q", file, base.stats.CollectorTime)
		}
		for _, w := range wraps {
			path := filepath.Join(dir, w.name+"-"+name)
			if err := os.WriteFile(path, wrapLines(data, func(i int) string { return w.prefix(i + 1) }), 0o644); err != nil {
				t.Fatal(err)
			}
			got := readInput(t, Input{Tier: Server, Format: lg.format, Pattern: path}, nil, dir, w.name+"-"+name)
			if got.stats.Prefix != w.name || got.stats.CollectorTime != w.name+": "+columns[lg.format] {
				t.Errorf("%s through %s: prefix %q, collector_time %q", file, w.name, got.stats.Prefix, got.stats.CollectorTime)
			}
			if len(got.rows) != len(base.rows) {
				t.Fatalf("%s through %s: %d rows, want %d", file, w.name, len(got.rows), len(base.rows))
			}
			timed := map[int64]at{}
			for _, a := range want[file] {
				ts, err := time.Parse(time.RFC3339Nano, a.want)
				if err != nil {
					t.Fatal(err)
				}
				a.want = ts.Truncate(w.res).Format(time.RFC3339Nano)
				timed[a.line] = a
			}
			for i, r := range got.rows {
				row := serverRowOf(t, r.json)
				var gotAt at
				switch {
				case row.Arrival != 0 && row.End != 0:
					t.Errorf("%s:%d through %s: both an arrival and an end", file, r.line, w.name)
				case row.Arrival != 0:
					gotAt = at{r.line, "arrival_time", time.Unix(0, row.Arrival).UTC().Format(time.RFC3339Nano)}
				case row.End != 0:
					gotAt = at{r.line, "end_time", time.Unix(0, row.End).UTC().Format(time.RFC3339Nano)}
				}
				if wantAt, ok := timed[r.line]; ok != (gotAt.col != "") || (ok && gotAt != wantAt) {
					t.Errorf("%s:%d through %s: %+v, want %+v", file, r.line, w.name, gotAt, wantAt)
				}
				// The property: the same row but for its times.
				row.Arrival, row.End = 0, 0
				b, _ := json.Marshal(row)
				if r.line != base.rows[i].line || string(b) != base.rows[i].json {
					t.Errorf("%s through %s: row %d differs but for its times:\n got %d %s\nwant %d %s",
						file, w.name, i, r.line, b, base.rows[i].line, base.rows[i].json)
				}
			}
		}
	}
}

func serverRowOf(t *testing.T, s string) record.ServerRow {
	t.Helper()
	var r record.ServerRow
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatal(err)
	}
	return r
}
