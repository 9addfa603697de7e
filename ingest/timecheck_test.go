package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/simulate"
)

// Two client formats for the tests of the time check, whatever the real
// readers do: "testtimes", lines "times|ID|START" (START in Unix seconds,
// or empty: no time), and "testtimesdoc", the same lines in a document
// that starts with the line "times-doc".
func init() {
	record.RegisterLine(Client, "testtimes", func(first []byte) bool { return bytes.HasPrefix(first, []byte("times|")) },
		func() record.LineParser[ClientRow] { return testTimesParser{} })
	record.RegisterDoc(Client, "testtimesdoc", func(first []byte) bool { return string(first) == "times-doc" }, parseTestTimesDoc)
}

type testTimesParser struct{}

func (testTimesParser) ParseLine(line []byte, out *record.RowQueue[ClientRow]) error {
	f := strings.Split(string(line), "|")
	if len(f) != 3 || f[0] != "times" {
		return fmt.Errorf("%w: want times|ID|START", ErrSyntax)
	}
	row := out.Next()
	row.RequestID, row.Format = f[1], "testtimes"
	if f[2] != "" {
		var s int64
		if _, err := fmt.Sscan(f[2], &s); err != nil {
			return fmt.Errorf("%w: %v", ErrBadTime, err)
		}
		row.Start = s * 1e9
	}
	return nil
}

func parseTestTimesDoc(r io.Reader, file string, out *DocOut[ClientRow]) error {
	sc := bufio.NewScanner(r)
	var n int64
	for sc.Scan() {
		n++
		if n == 1 {
			continue // "times-doc"
		}
		var q record.RowQueue[ClientRow]
		err := testTimesParser{}.ParseLine(sc.Bytes(), &q)
		if err == nil {
			row := out.Next()
			*row = q.Rows[0]
			row.Format = "testtimesdoc"
		}
		if err := out.Done(n, nil, err); err != nil {
			return err
		}
	}
	return sc.Err()
}

// timesLines writes n lines "times|rN|START", the ones for which timed(i)
// holds with a start.
func timesLines(n int, timed func(i int) bool) []byte {
	var b bytes.Buffer
	for i := range n {
		start := ""
		if timed(i) {
			start = fmt.Sprint(1796032800 + i)
		}
		fmt.Fprintf(&b, "times|r%d|%s\n", i, start)
	}
	return b.Bytes()
}

// nativeGateway writes n native gateway lines, each with its start and end.
func nativeGateway(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"request_id":"g%d","start":%[2]d.25,"end":%[2]d.75,"upstream_start":%[2]d.26,"upstream_end":%[2]d.74,"status":200,"route":"/v1/chat/completions"}`+"\n", i, 1796032800+i)
	}
	return b.Bytes()
}

// parquetParts lists the part files of a tier in out.
func parquetParts(t *testing.T, out string, tier Tier) []string {
	t.Helper()
	var parts []string
	for _, p := range partFiles(out) {
		if strings.HasPrefix(p, filepath.Join(out, string(tier))+string(filepath.Separator)) {
			parts = append(parts, p)
		}
	}
	return parts
}

func rejectKinds(t *testing.T, out string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "rejects.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var r struct{ File, Kind string }
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		kinds[filepath.Base(r.File)+" "+r.Kind]++
	}
	return kinds
}

// TestNativeGatewayNamedNginx: native gateway JSON given as nginx:FILE
// makes rows (NGINX's JSON reader takes request_id and status by name) and
// none of their times. The file is refused, naming the format, the counts
// and the format sniffing picks, its 1000 lines count as rejected under one
// wrong_format reject, and no row of it is written; a good file of the same
// run is kept.
func TestNativeGatewayNamedNginx(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad, good := filepath.Join(dir, "bad.jsonl"), filepath.Join(dir, "good.jsonl")
	writeInput(t, bad, nativeGateway(1000))
	writeInput(t, good, nativeGateway(10))
	out := filepath.Join(dir, "out")
	for _, workers := range []int{1, 3} {
		m, err := Run(context.Background(), Options{Out: out, Workers: workers,
			Inputs: []Input{{Tier: Gateway, Format: "nginx", Pattern: bad}, {Tier: Gateway, Format: "native", Pattern: good}}})
		if err != nil {
			t.Fatal(err)
		}
		checkAccounting(t, m)
		f := m.Files[0]
		want := "format nginx: 1000 of 1000 rows have no start or end time; is it another format? (sniffing suggests native)"
		if f.Path != bad || f.Error != want || f.Rows != 0 || f.Decoded != 0 || f.Rejected != 1000 {
			t.Errorf("manifest: %+v\nwant error %q", f, want)
		}
		if !IsFormatError(f.Error) {
			t.Errorf("IsFormatError(%q) = false", f.Error)
		}
		if g := m.Files[1]; g.Error != "" || g.Rows != 10 {
			t.Errorf("the good file: %+v", g)
		}
		if got := rejectKinds(t, out); got["bad.jsonl wrong_format"] != 1 || len(got) != 1 {
			t.Errorf("rejects: %v, want one wrong_format", got)
		}
		var rows []GatewayRow
		for _, p := range parquetParts(t, out, Gateway) {
			r, err := readParquet[GatewayRow](p)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r...)
		}
		if len(rows) != 10 {
			t.Errorf("%d gateway rows written, want the good file's 10", len(rows))
		}
		for _, r := range rows {
			if r.SourceFile != good {
				t.Errorf("a row of %s was written", r.SourceFile)
				break
			}
		}
	}
}

// TestTimesRule: the rule on files of one client format, sniffed or
// named, line or document: a file is refused when at least 99% of its rows
// lack their times, read otherwise.
func TestTimesRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		format    string // "" sniffed
		doc       bool
		n         int
		timed     func(i int) bool
		wantError string // "" read
	}{
		{"sniffed none timed", "", false, 200, func(int) bool { return false },
			"format testtimes (sniffed): 200 of 200 rows have no start or end time and no end-to-end duration; is it another format?"},
		{"named none timed", "testtimes", false, 5, func(int) bool { return false },
			"format testtimes: 5 of 5 rows have no start or end time and no end-to-end duration; is it another format?"},
		{"99% untimed", "", false, 100, func(i int) bool { return i == 50 },
			"format testtimes (sniffed): 99 of 100 rows have no start or end time and no end-to-end duration; is it another format?"},
		{"98% untimed", "", false, 100, func(i int) bool { return i%50 == 7 }, ""},
		{"some untimed", "", false, 100, func(i int) bool { return i%2 == 0 }, ""},
		{"all timed", "testtimes", false, 3, func(int) bool { return true }, ""},
		{"beyond the first lines", "", false, 2000, func(i int) bool { return i < 1000 }, ""},
		{"first lines of many", "", false, 3000, func(i int) bool { return i >= 1000 },
			"format testtimes (sniffed): 1000 of the first 1000 rows have no start or end time and no end-to-end duration; is it another format?"},
		{"doc none timed", "", true, 300, func(int) bool { return false },
			"format testtimesdoc (sniffed): 300 of 300 rows have no start or end time and no end-to-end duration; is it another format?"},
		{"doc one timed", "testtimesdoc", true, 50, func(i int) bool { return i == 3 }, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := timesLines(c.n, c.timed)
			if c.doc {
				data = append([]byte("times-doc\n"), data...)
			}
			path := filepath.Join(dir, "in.log")
			writeInput(t, path, data)
			out := filepath.Join(dir, "out")
			m, err := Run(context.Background(), Options{Out: out, Workers: 2, Inputs: []Input{{Tier: Client, Format: c.format, Pattern: path}}})
			if err != nil {
				t.Fatal(err)
			}
			checkAccounting(t, m)
			f := m.Files[0]
			if f.Error != c.wantError {
				t.Fatalf("error %q, want %q", f.Error, c.wantError)
			}
			parts := parquetParts(t, out, Client)
			if c.wantError != "" {
				if f.Rows != 0 || f.Rejected != int64(c.n) || len(parts) != 0 || rejectKinds(t, out)["in.log wrong_format"] != 1 {
					t.Errorf("refused file: %+v, parts %v, rejects %v", f, parts, rejectKinds(t, out))
				}
				return
			}
			if f.Rows != int64(c.n) || len(parts) == 0 {
				t.Errorf("read file: %+v, parts %v", f, parts)
			}
		})
	}
}

// TestTimesCheckedOverAllRows: a line-format file whose first lines carry
// their times and of whose rows at least 99% lack them still fails the run
// (its rows are written by then, and kept).
func TestTimesCheckedOverAllRows(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "in.log")
	writeInput(t, path, timesLines(100_000, func(i int) bool { return i < 1000 }))
	m, err := Run(context.Background(), Options{Out: filepath.Join(dir, "out"), Workers: 2, Inputs: []Input{{Tier: Client, Pattern: path}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "format testtimes (sniffed): 99000 of 100000 rows have no start or end time and no end-to-end duration; is it another format?"
	if f := m.Files[0]; f.Error != want || f.Rows != 100_000 {
		t.Errorf("manifest: %+v\nwant error %q", f, want)
	}
}

// simulated writes the simulator's native logs of every tier (200
// requests) and returns one file of each tier.
func simulated(t *testing.T) map[Tier]string {
	t.Helper()
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests = t.TempDir(), 200
	if _, err := simulate.Run(context.Background(), cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	files := map[Tier]string{}
	for _, tier := range Tiers {
		m, _ := filepath.Glob(filepath.Join(cfg.Out, string(tier), "*"))
		if len(m) == 0 {
			t.Fatalf("the simulator wrote no %s log", tier)
		}
		files[tier] = m[0]
	}
	return files
}

// TestWrongFormatPerTier: the native log of each tier, from the simulator,
// named as another format of its tier fails the run, with no row kept.
func TestWrongFormatPerTier(t *testing.T) {
	t.Parallel()
	sim := simulated(t)
	for _, c := range []struct {
		tier   Tier
		format string
	}{
		{Gateway, "nginx"}, {Gateway, "envoy"},
		{Server, "tgi"}, {Server, "vllm-otlp"}, {Server, "ollama-gin"},
		{Client, "aiperf"}, {Client, "k6"},
	} {
		t.Run(string(c.tier)+"/"+c.format, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			m, err := Run(context.Background(), Options{Out: out, Workers: 1, Inputs: []Input{{Tier: c.tier, Format: c.format, Pattern: sim[c.tier]}}})
			if err != nil {
				t.Fatal(err)
			}
			if f := m.Files[0]; f.Error == "" || !IsFormatError(f.Error) || f.Rows != 0 {
				t.Errorf("manifest: %+v", f)
			}
			if parts := parquetParts(t, out, c.tier); len(parts) != 0 {
				t.Errorf("parts written: %v", parts)
			}
		})
	}
}

// TestWrongFormatNeverTimeless is the property: whatever format a file is
// read with (every registered format of every tier, given the native log
// of each tier and real samples of other formats), the run fails for the
// file, or it wrote rows and they carry their times (record.HasTime) —
// all of them, on these inputs. Formats whose rows carry no time by design
// (vllm-log) are exempt from the second part.
func TestWrongFormatNeverTimeless(t *testing.T) {
	t.Parallel()
	sim := simulated(t)
	inputs := []string{sim[Client], sim[Gateway], sim[Server]}
	for _, s := range []string{
		"client/aiperf_profile_export_docs.jsonl", "client/k6_json_output_llm_constructed.jsonl",
		"client/genai_perf_profile_export.json", "gateway/nginx_combined.log", "gateway/envoy_default_text_llm.log",
		"gateway/litellm_standard_logging_payload_constructed.json", "server/tgi_json_output.jsonl",
		"server/ollama_gin_access.log", "server/triton_trace_file.json", "server/vllm_request_log.new.txt",
		"server/sglang_request_metrics_export.jsonl", "server/vllm_otel_llm_request_span.otlp.json",
	} {
		inputs = append(inputs, filepath.Join("testdata/samples", s))
	}
	for _, tier := range Tiers {
		for _, name := range Formats(tier) {
			f, _ := record.Lookup(tier, name)
			for _, in := range inputs {
				t.Run(fmt.Sprintf("%s/%s/%s", tier, name, filepath.Base(in)), func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out")
					m, err := Run(context.Background(), Options{Out: out, Workers: 1, Inputs: []Input{{Tier: tier, Format: name, Pattern: in}}})
					if err != nil || m.Files[0].Error != "" {
						return // the run fails
					}
					rows, untimed := timedRows(t, out, tier)
					if rows == 0 { // every input holds records: none read is a wrong format
						t.Errorf("%s read as %s: the run succeeds with no row", in, name)
					}
					if untimed > 0 && !f.Untimed {
						t.Errorf("%s read as %s: the run succeeds and %d of its %d rows lack their times", in, name, untimed, rows)
					}
				})
			}
		}
	}
}

// timedRows reads back the rows of tier in out and counts those without
// the times of their tier.
func timedRows(t *testing.T, out string, tier Tier) (rows, untimed int) {
	t.Helper()
	for _, p := range parquetParts(t, out, tier) {
		var n, u int
		var err error
		switch tier {
		case Client:
			n, u, err = countTimed[ClientRow](p)
		case Gateway:
			n, u, err = countTimed[GatewayRow](p)
		case Server:
			n, u, err = countTimed[ServerRow](p)
		}
		if err != nil {
			t.Fatal(err)
		}
		rows, untimed = rows+n, untimed+u
	}
	return rows, untimed
}

func countTimed[T Row](path string) (rows, untimed int, err error) {
	rs, err := readParquet[T](path)
	for i := range rs {
		if !record.HasTime(&rs[i]) {
			untimed++
		}
	}
	return len(rs), untimed, err
}
