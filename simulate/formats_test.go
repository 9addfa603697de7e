package simulate

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/infertrace/infertrace/ingest"
)

// The server formats, read back by the ingest readers: every intact record
// must give a row whose durations are the host-clock durations of the
// simulated request, exact to the format's unit, and whose instants are the
// host's readings (compared with the native log of the same seed). The
// truth holds true durations; a host's durations differ from them only by
// its drift, |DriftPPM|·1e-6 of the duration, plus 1 ns of the drift's
// rounding per instant.

// ingestServer reads every server file under dir with the ingest readers
// (formats sniffed, as the README's glob does) and returns the rows and the
// manifest.
func ingestServer(t *testing.T, dir string) ([]ingest.ServerRow, *ingest.Manifest) {
	t.Helper()
	out := t.TempDir()
	m, err := ingest.Run(context.Background(), ingest.Options{
		Inputs: []ingest.Input{{Tier: ingest.Server, Pattern: filepath.Join(dir, "server", "*")}},
		Out:    out,
	})
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "server", "*", "*.parquet"))
	var rows []ingest.ServerRow
	for _, p := range parts {
		rs, err := parquet.ReadFile[ingest.ServerRow](p)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	return rows, m
}

// serverLine is one row of server_lines.csv.
type serverLine struct {
	file, id, format string
	line             int64
	engineID         string
}

func readServerLines(t *testing.T, dir string) []serverLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "server_lines.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "file,line,request_id,engine_id,format" {
		t.Fatalf("server_lines.csv header %v", recs[0])
	}
	var out []serverLine
	for _, r := range recs[1:] {
		n, _ := strconv.ParseInt(r[1], 10, 64)
		out = append(out, serverLine{file: r[0], line: n, id: r[2], engineID: r[3], format: r[4]})
	}
	return out
}

// nsOf converts a truth duration in ms back to its exact nanoseconds.
func nsOf(p *float64) (int64, bool) {
	if p == nil {
		return 0, false
	}
	return int64(math.Round(*p * 1e6)), true
}

// fmtCheck accumulates the comparisons of one format.
type fmtCheck struct {
	t        *testing.T
	format   string
	rows     int
	compared map[string]int
	worst    map[string]int64 // largest |error| beyond the drift, ns
	bad      int
	noInfo   int // Triton traces read without their info fragment
}

func (c *fmtCheck) near(id, field string, got *int64, want, slack int64, drift float64) {
	c.t.Helper()
	if got == nil {
		c.fail("%s %s: %s is NULL, want %d ns", c.format, id, field, want)
		return
	}
	c.compared[field]++
	d := *got - want
	if d < 0 {
		d = -d
	}
	tol := int64(math.Abs(drift)*1e-6*float64(want)) + 2 + slack
	if d > tol {
		c.fail("%s %s: %s = %d ns, want %d ± %d", c.format, id, field, *got, want, tol)
	}
	if e := d - int64(math.Abs(drift)*1e-6*float64(want)); e > c.worst[field] {
		c.worst[field] = e
	}
}

func (c *fmtCheck) instant(id, field string, got, want, slack int64) {
	c.t.Helper()
	if got == 0 || want == 0 {
		c.fail("%s %s: %s is NULL (%d, native %d)", c.format, id, field, got, want)
		return
	}
	c.compared[field]++
	d := got - want
	if d < 0 {
		d = -d
	}
	if d > slack {
		c.fail("%s %s: %s = %d, native log %d (off by %d ns, allowed %d)", c.format, id, field, got, want, d, slack)
	}
	if d > c.worst[field] {
		c.worst[field] = d
	}
}

func (c *fmtCheck) fail(f string, args ...any) {
	c.t.Helper()
	c.bad++
	if c.bad <= 20 {
		c.t.Errorf(f, args...)
	}
}

func ptr(v int64) *int64 { return &v }

// fileFormat is the format of a server file, from its name:
// <host>.jsonl is native, <host>.<format>.json[l] another.
func fileFormat(path, host string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".gz")
	rest := strings.TrimPrefix(base, host)
	rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".jsonl"), ".json")
	if rest == "" {
		return FormatNative
	}
	return strings.TrimPrefix(rest, ".")
}

func TestServerFormatsRoundTrip(t *testing.T) {
	t.Parallel()
	all := []string{FormatVLLMOTLP, FormatTGI, FormatTriton, FormatSGLangMetrics, FormatTRTLLM}
	nat := testConfig(t, 3000)
	fc := nat
	fc.Out = t.TempDir()
	fc.Formats = all
	_, _ = run(t, nat)
	sum, _ := run(t, fc)

	// The format changes the server files only.
	fn, ff := dirFiles(t, nat.Out), dirFiles(t, fc.Out)
	for name, data := range fn {
		if strings.HasPrefix(name, "server"+string(filepath.Separator)) {
			continue
		}
		if !bytes.Equal(data, ff[name]) && name != "clocks.csv" {
			t.Errorf("%s differs between native and %v servers", name, all)
		}
	}

	truth := map[string]TruthRow{}
	for _, r := range readTruth(t, fc.Out) {
		truth[r.RequestID] = r
	}
	nrows, _ := ingestServer(t, nat.Out)
	native := map[string]ingest.ServerRow{}
	for _, r := range nrows {
		native[r.RequestID] = r
	}
	rows, man := ingestServer(t, fc.Out)

	// Which request each intact record is, by file and line or engine ID.
	type key struct {
		file string
		line int64
		eng  string
	}
	lines := readServerLines(t, fc.Out)
	byKey := map[key]string{}
	perFile := map[string]int{}
	for _, l := range lines {
		k := key{file: l.file}
		switch l.format {
		case FormatTGI:
			k.line = l.line
		case FormatTriton, FormatTRTLLM:
			k.eng = l.engineID
		default:
			k.eng = l.id
		}
		if _, dup := byKey[k]; dup {
			t.Fatalf("server_lines.csv: %v twice", k)
		}
		byKey[k] = l.id
		perFile[l.file]++
	}
	drift := map[string]float64{}  // by file
	format := map[string]string{}  // by file
	records := map[string]int{}    // by file
	replica := map[string]string{} // by file
	for i, f := range sum.Files {
		if f.Tier != "server" {
			continue
		}
		drift[f.Path] = sum.Clocks[i].DriftPPM
		format[f.Path] = fileFormat(f.Path, f.Host)
		replica[f.Path] = f.Host
		records[f.Path] = f.Records
		if perFile[f.Path] != f.Records {
			t.Errorf("%s: server_lines.csv names %d records, the summary %d", f.Path, perFile[f.Path], f.Records)
		}
	}
	for _, mf := range man.Files {
		rel := "server/" + filepath.Base(mf.Path)
		if mf.Format != format[rel] {
			t.Errorf("%s sniffed as %q, want %q", rel, mf.Format, format[rel])
		}
		t.Logf("%-45s %-14s lines=%d rows=%d rejected=%d duplicates=%d records=%d",
			rel, mf.Format, mf.Lines, mf.Rows, mf.Rejected, mf.Duplicates, records[rel])
		if mf.Rejected == 0 {
			t.Errorf("%s: no line rejected; the simulation cuts some", rel)
		}
	}

	checks := map[string]*fmtCheck{}
	seen := map[string]bool{}
	for _, row := range rows {
		file := "server/" + filepath.Base(row.SourceFile)
		f := format[file]
		c := checks[f]
		if c == nil {
			c = &fmtCheck{t: t, format: f, compared: map[string]int{}, worst: map[string]int64{}}
			checks[f] = c
		}
		k := key{file: file}
		switch f {
		case FormatTGI:
			k.line = row.SourceLine
		case FormatTriton, FormatTRTLLM:
			k.eng = row.EngineRequestID
		default:
			k.eng = row.RequestID
		}
		id, ok := byKey[k]
		if !ok && f == FormatTriton && row.RequestID == "" && row.Model == "" {
			// A trace whose info fragment was cut: its durations are
			// kept with neither model nor ID, so it joins nothing.
			c.noInfo++
			if row.E2ENS == nil {
				c.fail("%s:%d: a trace without its info fragment and without its durations", file, row.SourceLine)
			}
			continue
		}
		if !ok {
			c.fail("%s:%d: a row (%+v) that is no intact record", file, row.SourceLine, k)
			continue
		}
		if seen[f+"\x00"+id] && f == FormatTRTLLM { // a duplicated element: the same values again
			continue
		}
		seen[f+"\x00"+id] = true
		c.rows++
		tr, nr := truth[id], native[id]
		dr := drift[file]
		e2e, _ := nsOf(tr.ServerE2EMs)
		queue, _ := nsOf(tr.QueueMs)
		model, _ := nsOf(tr.ModelMs)
		ttft, hasFirst := nsOf(tr.ServerTTFTMs)
		prefill, _ := nsOf(tr.TTFTModelMs)
		if tr.Replica != replica[file] {
			c.fail("%s: request %s was served by %s", file, id, tr.Replica)
		}
		if nr.RequestID == "" {
			c.fail("%s: request %s has no native record with the same seed", file, id)
			continue
		}
		switch f {
		case FormatVLLMOTLP:
			if row.RequestID != id {
				c.fail("vllm-otlp: request_id %q, want %q", row.RequestID, id)
			}
			c.near(id, "e2e", row.E2ENS, e2e, 0, dr)
			c.near(id, "queue", row.QueueNS, queue, 0, dr)
			c.near(id, "inference", row.InferenceNS, model, 0, dr)
			c.instant(id, "arrival", row.Arrival, nr.Arrival, 501)
			c.instant(id, "scheduled", row.Scheduled, nr.Scheduled, 501)
			c.instant(id, "end", row.End, nr.End, 501)
			if hasFirst {
				c.near(id, "ttft", row.TTFTNS, ttft, 0, dr)
				c.near(id, "prefill", row.PrefillNS, prefill, 0, dr)
				c.near(id, "decode", row.DecodeNS, model-prefill, 2, dr)
				c.instant(id, "first_token", row.FirstToken, nr.FirstToken, 501)
			} else if row.TTFTNS != nil || row.Error == "" {
				c.fail("vllm-otlp %s: a 5xx with TTFT %v, error %q", id, row.TTFTNS, row.Error)
			}
			if row.PromptTokens == nil || *row.PromptTokens != tr.PromptTokens || row.OutputTokens == nil || *row.OutputTokens != tr.OutputTokens {
				c.fail("vllm-otlp %s: tokens %v/%v, want %d/%d", id, row.PromptTokens, row.OutputTokens, tr.PromptTokens, tr.OutputTokens)
			}
		case FormatTGI:
			if row.RequestID != "" {
				c.fail("tgi: a request_id %q; TGI logs none", row.RequestID)
			}
			// TGI's timestamp is truncated to the µs, the native one rounded.
			c.instant(id, "end", row.End, nr.End, 1500)
			if !hasFirst { // a 5xx: an ERROR event, no timings
				if row.Error == "" || row.E2ENS != nil {
					c.fail("tgi %s: a 5xx gave error %q, e2e %v", id, row.Error, row.E2ENS)
				}
				continue
			}
			c.near(id, "e2e", row.E2ENS, e2e, 0, dr)
			c.near(id, "arrival_to_scheduled", ptr(row.Scheduled-row.Arrival), queue, 0, dr)
			c.near(id, "inference", row.InferenceNS, model, 0, dr)
			c.instant(id, "arrival", row.Arrival, nr.Arrival, 1500)
			c.instant(id, "scheduled", row.Scheduled, nr.Scheduled, 1500)
			if row.OutputTokens == nil || *row.OutputTokens != tr.OutputTokens {
				c.fail("tgi %s: output tokens %v, want %d", id, row.OutputTokens, tr.OutputTokens)
			}
		case FormatTriton:
			if row.RequestID != id || row.Model != tr.Model {
				c.fail("triton: request_id %q model %q, want %q %q", row.RequestID, row.Model, id, tr.Model)
			}
			if row.Arrival != 0 || row.End != 0 {
				c.fail("triton %s: instants from a steady clock", id)
			}
			// The frontend's microseconds: QUEUE starts 9 µs + 2 ns per
			// prompt token after arrival, COMPUTE ends 12 µs before the end
			// (each capped by the wait, the model time).
			c.near(id, "e2e", row.E2ENS, e2e, 0, dr)
			c.near(id, "queue", row.QueueNS, max(0, queue-9000-2*int64(tr.PromptTokens)), 0, dr)
			c.near(id, "inference", row.InferenceNS, max(0, model-12000), 0, dr)
		case FormatSGLangMetrics:
			if row.RequestID != id {
				c.fail("sglang: request_id %q, want %q", row.RequestID, id)
			}
			// Epoch instants are Python floats, 0.24 µs apart today: the
			// float is within half of that of the host's time, and its
			// shortest decimal within half of that of the float.
			const ulp = 239
			c.near(id, "e2e", row.E2ENS, e2e, 0, dr)
			c.near(id, "queue", row.QueueNS, queue, 0, dr)
			c.near(id, "inference", row.InferenceNS, model, 0, dr)
			c.instant(id, "arrival", row.Arrival, nr.Arrival, 500+ulp+1)
			c.instant(id, "scheduled", row.Scheduled, nr.Scheduled, 500+ulp+1)
			c.instant(id, "end", row.End, nr.End, 500+ulp+1)
			if hasFirst {
				c.near(id, "ttft", row.TTFTNS, ttft, 2*ulp, dr)
				c.near(id, "prefill", row.PrefillNS, prefill, 2*ulp, dr)
				c.near(id, "decode", row.DecodeNS, model-prefill, 2*ulp, dr)
				c.instant(id, "first_token", row.FirstToken, nr.FirstToken, 500+ulp+1)
			}
			if row.OutputTokens == nil || *row.OutputTokens != tr.OutputTokens {
				c.fail("sglang %s: output tokens %v, want %d", id, row.OutputTokens, tr.OutputTokens)
			}
		case FormatTRTLLM:
			if row.RequestID != "" {
				c.fail("trtllm: a request_id %q; /perf_metrics has executor IDs only", row.RequestID)
			}
			c.near(id, "queue", row.QueueNS, queue, 0, dr)
			if hasFirst {
				c.near(id, "e2e", row.E2ENS, e2e, 0, dr)
				c.near(id, "ttft", row.TTFTNS, ttft, 0, dr)
				c.near(id, "prefill", row.PrefillNS, prefill, 0, dr)
				c.near(id, "decode", row.DecodeNS, model-prefill, 2, dr)
			}
		}
	}
	for _, f := range all {
		c := checks[f]
		if c == nil {
			t.Errorf("%s: no rows", f)
			continue
		}
		var parts []string
		for field, n := range c.compared {
			parts = append(parts, fmt.Sprintf("%s %d (worst %d ns past drift)", field, n, c.worst[field]))
		}
		t.Logf("%-14s %d records: %s", f, c.rows, strings.Join(slices.Sorted(slices.Values(parts)), ", "))
		if c.noInfo > 0 {
			t.Logf("%-14s %d traces without their info fragment (cut by the simulation), read without model or ID", f, c.noInfo)
		}
		if c.rows < 300 {
			t.Errorf("%s: only %d records compared", f, c.rows)
		}
	}
	for file, n := range perFile {
		got := 0
		for s := range seen {
			if strings.HasPrefix(s, format[file]+"\x00") {
				got++
			}
		}
		if got != n {
			t.Errorf("%s: %d intact records, %d read back", file, n, got)
		}
	}
}

func TestServerFormatChoice(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 200)
	c.Formats = []string{"tgi", "triton", "llama-3.1-70b-1=vllm-otlp"}
	sum, _ := run(t, c)
	again := c
	again.Out = t.TempDir()
	run(t, again)
	fa, fb := dirFiles(t, c.Out), dirFiles(t, again.Out)
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs with the same seed and formats", name)
		}
	}
	var got []string
	for _, f := range sum.Files {
		if f.Tier == "server" {
			got = append(got, f.Path)
		}
	}
	want := []string{
		"server/llama-3.1-8b-0.tgi.jsonl",
		"server/llama-3.1-8b-1.triton.json",
		"server/llama-3.1-8b-2.tgi.jsonl",
		"server/llama-3.1-70b-0.triton.json",
		"server/llama-3.1-70b-1.vllm-otlp.jsonl.gz",
	}
	if !slices.Equal(got, want) {
		t.Errorf("server files %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(c.Out, "server_lines.csv")); err != nil {
		t.Error(err)
	}

	// Back to native: the other formats' files and server_lines.csv go.
	c.Formats = nil
	run(t, c)
	left, _ := filepath.Glob(filepath.Join(c.Out, "server", "*"))
	for i := range left {
		left[i] = filepath.Base(left[i])
	}
	if want := []string{"llama-3.1-70b-0.jsonl", "llama-3.1-70b-1.jsonl.gz", "llama-3.1-8b-0.jsonl", "llama-3.1-8b-1.jsonl", "llama-3.1-8b-2.jsonl"}; !slices.Equal(left, want) {
		t.Errorf("after a native run the server directory holds %v, want %v", left, want)
	}
	if _, err := os.Stat(filepath.Join(c.Out, "server_lines.csv")); !os.IsNotExist(err) {
		t.Errorf("server_lines.csv left by the earlier run: %v", err)
	}

	for _, bad := range [][]string{{"llama-3.1-8b-9=tgi"}, {"llama-3.1-8b-0=otel"}, {"=tgi"}} {
		c.Formats = bad
		if _, err := Run(context.Background(), c, nil); err == nil {
			t.Errorf("Formats %v: no error", bad)
		}
	}
}

func TestRustDuration(t *testing.T) {
	t.Parallel()
	for ns, want := range map[int64]string{
		0: "0ns", 812: "812ns", 1000: "1µs", 42600: "42.6µs", 2_500_000: "2.5ms",
		351_204_800: "351.2048ms", 1_000_000_000: "1s", 2_639_712_331: "2.639712331s", 1_000_000_001: "1.000000001s",
	} {
		if got := string(appendRustDuration(nil, ns)); got != want {
			t.Errorf("%d ns: %q, want %q", ns, got, want)
		}
	}
	for f, want := range map[float64]string{0: "0.0", 3.2e-05: "3.2e-05", 1796032801: "1796032801.0", 0.3512: "0.3512"} {
		if got := string(appendPyFloat(nil, f)); got != want {
			t.Errorf("%v: %q, want %q", f, got, want)
		}
	}
}

// TestNativeDataSetReproduced guards the native output: the bundled data
// set is `simulate --requests 1000 --seed 7`, and choosing server formats
// must not have changed a byte of what native writes.
func TestNativeDataSetReproduced(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 1000)
	c.Seed = 7
	run(t, c)
	want := dirFiles(t, filepath.Join("..", "testdata", "native"))
	if len(want) == 0 {
		t.Fatal("no testdata/native")
	}
	got := dirFiles(t, c.Out)
	for name, data := range want {
		if !bytes.Equal(data, got[name]) {
			t.Errorf("%s differs from testdata/native/%s", name, name)
		}
	}
}
