package e2e

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
)

// writeLines writes lines, one per line, to dir/name and returns its path.
func writeLines(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	return writeFile(t, dir, name, []byte(strings.Join(lines, "\n")+"\n"))
}

// writeFile writes data to dir/name, making its directories, and returns
// its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// queryStrings runs q on an in-process DuckDB and returns each row's columns
// joined by " ", in the query's order.
func queryStrings(t *testing.T, q string) []string {
	t.Helper()
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, v := range vals {
			if v.Valid {
				s = append(s, v.String)
			} else {
				s = append(s, "NULL")
			}
		}
		out = append(out, strings.Join(s, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAppendBatches: ingest --append adds a second batch to a store without
// touching the first: the counts add up, each file is in the manifest once,
// a file given again (under its own path or a copy's) is skipped and not
// counted twice, a request whose client and gateway records came in batch 1
// and whose server record came in batch 2 joins whole, and a log that grew
// since it was ingested is refused with the store left as it was.
func TestAppendBatches(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "logs")
	out := filepath.Join(dir, "out")
	c1 := writeLines(t, in, "client/c1.jsonl",
		`{"request_id":"r1","start":"2026-11-30T10:00:00Z","end":"2026-11-30T10:00:02Z","model":"m"}`,
		`{"request_id":"r2","start":"2026-11-30T10:00:05Z","end":"2026-11-30T10:00:08Z","model":"m"}`,
		`{"request_id":"bad"`)
	g1 := writeLines(t, in, "gateway/g1.jsonl",
		`{"request_id":"r1","start":"2026-11-30T10:00:00.1Z","end":"2026-11-30T10:00:01.9Z"}`,
		`{"request_id":"r2","start":"2026-11-30T10:00:05.1Z","end":"2026-11-30T10:00:07.8Z"}`)
	s1 := writeLines(t, in, "server/s1.jsonl",
		`{"request_id":"r1","arrival":"2026-11-30T10:00:00.2Z","scheduled":"2026-11-30T10:00:00.5Z","end":"2026-11-30T10:00:01.7Z"}`)
	code, stdout, stderr := runCLI(t, "ingest", "--append", "--client", "native:"+c1, "--gateway", "native:"+g1, "--server", "native:"+s1, "--out", out)
	if code != 0 || !strings.Contains(stdout, "appended 3 files (0 skipped") {
		t.Fatalf("batch 1: exit %d\n%s%s", code, stdout, stderr)
	}
	// Batch 2: r2's server record, the client log again, a copy of the
	// gateway log under another name.
	s2 := writeLines(t, in, "server/s2.jsonl",
		`{"request_id":"r2","arrival":"2026-11-30T10:00:05.2Z","scheduled":"2026-11-30T10:00:06Z","end":"2026-11-30T10:00:07.5Z"}`,
		`{"request_id":"r2"`)
	gb, _ := os.ReadFile(g1)
	g1copy := filepath.Join(in, "gateway", "g1-copy.jsonl")
	os.WriteFile(g1copy, gb, 0o644)
	code, stdout, stderr = runCLI(t, "ingest", "--append", "--client", "native:"+c1, "--gateway", "native:"+g1copy, "--server", "native:"+s2, "--out", out)
	if code != 0 || !strings.Contains(stdout, "appended 1 files (2 skipped") || !strings.Contains(stdout, "the store holds 4 files from 2 batches, 6 rows") {
		t.Fatalf("batch 2: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{c1 + " is in the store already (unchanged): skipped", g1copy + " is in the store already (the same content as " + g1 + "): skipped"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("batch 2 does not say %q:\n%s", want, stderr)
		}
	}
	m, err := ingest.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, filepath.Base(f.Path)+"@"+map[bool]string{true: "1", false: "2"}[f.Batch == m.Batches[0].RunID])
		if f.Fingerprint == "" {
			t.Errorf("%s has no fingerprint", f.Path)
		}
	}
	if got := strings.Join(paths, " "); got != "c1.jsonl@1 g1.jsonl@1 s1.jsonl@1 s2.jsonl@2" || len(m.Batches) != 2 || len(m.Batches[1].Skipped) != 2 {
		t.Errorf("manifest files %s, %d batches, %+v", got, len(m.Batches), m.Batches)
	}
	if tot := m.Totals(); tot.Lines != 8 || tot.Rows != 6 || tot.Rejected != 2 {
		t.Errorf("totals: %d lines, %d rows, %d rejected; want 8, 6, 2", tot.Lines, tot.Rows, tot.Rejected)
	}
	rejects, _ := os.ReadFile(filepath.Join(out, "rejects.jsonl"))
	if n := strings.Count(string(rejects), "\n"); n != 2 || !strings.Contains(string(rejects), "c1.jsonl") || !strings.Contains(string(rejects), "s2.jsonl") {
		t.Errorf("rejects.jsonl holds %d lines, want one of each batch:\n%s", n, rejects)
	}

	if code, _, stderr := runCLI(t, "analyze", out); code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	got := queryStrings(t, "SELECT request_id, has_client, has_gateway, has_server, client_records, gateway_records, server_records, client_e2e_ms, queue_ms, model_ms, network_ms, application_ms FROM '"+
		filepath.Join(out, "requests.parquet")+"' ORDER BY request_id")
	want := []string{
		"r1 true true true 1 1 1 2000 300 1200 200 300",
		// r2: queue 6 − 5.2 s, model 7.5 − 6 s, network 3000 − 2700 ms,
		// application 2700 − 2300 ms.
		"r2 true true true 1 1 1 3000 800 1500 300 400",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A log that grew since it was ingested: refused, nothing changes.
	before, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	f, _ := os.OpenFile(c1, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"request_id":"r3","start":"2026-11-30T10:01:00Z","end":"2026-11-30T10:01:01Z"}` + "\n")
	f.Close()
	code, _, stderr = runCLI(t, "ingest", "--append", "--client", c1, "--out", out)
	if code != 1 || !strings.Contains(stderr, c1+": grew since it was ingested") {
		t.Errorf("grown log: exit %d: %s", code, stderr)
	}
	after, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if string(before) != string(after) {
		t.Error("a refused append changed manifest.json")
	}
	if _, err := os.Stat(filepath.Join(out, "requests.parquet")); err != nil {
		t.Errorf("a refused append removed requests.parquet: %v", err)
	}
	// Everything given again: nothing to add, the store and its analysis stay.
	code, stdout, _ = runCLI(t, "ingest", "--append", "--gateway", "native:"+g1, "--out", out)
	if code != 0 || !strings.Contains(stdout, "appended nothing: all 1 files are in the store already") {
		t.Errorf("nothing new: exit %d: %s", code, stdout)
	}
	if code, _, stderr := runCLI(t, "report", "--format", "md", out); code != 0 {
		t.Errorf("report after an append of nothing new: exit %d: %s", code, stderr)
	}
}

// TestAppendDropsOrphanParts: parts of a run that died before writing its
// manifest are not read by analyze, and the next append removes them.
func TestAppendDropsOrphanParts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	c1 := writeLines(t, dir, "c1.jsonl", `{"request_id":"r1","start":"2026-11-30T10:00:00Z","end":"2026-11-30T10:00:02Z"}`)
	if code, _, stderr := runCLI(t, "ingest", "--append", "--client", c1, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "client", "date=2026-11-30", "part-*.parquet"))
	if len(parts) != 1 {
		t.Fatalf("parts %v", parts)
	}
	b, _ := os.ReadFile(parts[0])
	orphan := filepath.Join(out, "client", "date=2026-11-30", "part-ffffffffffffffffffffffff-w00.parquet")
	os.WriteFile(orphan, b, 0o644) // as if a killed append wrote it
	if code, _, stderr := runCLI(t, "analyze", out); code != 0 {
		t.Fatal(stderr)
	}
	if got := queryStrings(t, "SELECT count(*), max(client_records) FROM '"+filepath.Join(out, "requests.parquet")+"'"); got[0] != "1 1" {
		t.Errorf("requests, client records: %v; the orphan part was read", got)
	}
	c2 := writeLines(t, dir, "c2.jsonl", `{"request_id":"r2","start":"2026-11-30T11:00:00Z","end":"2026-11-30T11:00:02Z"}`)
	if code, _, stderr := runCLI(t, "ingest", "--append", "--client", c2, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("the next append left the orphan part")
	}
}

// TestAppendUnderSameName: a log appended again under its name (a rotated
// log, a day's file under a fixed name) is another file: its lines share
// no source with the earlier batch's, the earlier batch's requests are
// exactly those it had alone, and the later one's ID-less records are
// named PATH@2 (docs/store.md). The records log no request ID (NGINX's
// main format with timings), so each is a request of its own named by its
// source.
func TestAppendUnderSameName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := func(day, hms string) string {
		return `10.0.0.7 - - [` + day + `/Nov/2026:` + hms + ` +0000] "POST /v1/chat/completions HTTP/1.1" 200 512 "-" "curl/8.5.0" "-"` +
			` rt=1.000 uct="0.001" uht="0.200" urt="0.990"`
	}
	gw := writeLines(t, dir, "gw.log", line("23", "12:00:01"), line("23", "12:00:05"))
	const format = `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ` +
		`"$http_user_agent" "$http_x_forwarded_for" rt=$request_time uct="$upstream_connect_time" ` +
		`uht="$upstream_header_time" urt="$upstream_response_time"`
	alone, both := filepath.Join(dir, "alone"), filepath.Join(dir, "both")
	for _, out := range []string{alone, both} {
		if code, _, stderr := runCLI(t, "ingest", "-q", "--gateway", "nginx:"+gw, "--nginx-format", format, "--out", out); code != 0 {
			t.Fatal(stderr)
		}
	}
	// A week later, the same name holds the next lines.
	writeLines(t, dir, "gw.log", line("30", "12:00:01"), line("30", "12:00:05"), line("30", "12:00:09"))
	if code, _, stderr := runCLI(t, "ingest", "-q", "--append", "--gateway", "nginx:"+gw, "--nginx-format", format, "--out", both); code != 0 {
		t.Fatal(stderr)
	}
	for _, out := range []string{alone, both} {
		if code, _, stderr := runCLI(t, "analyze", "-q", "--threads", "1", out); code != 0 {
			t.Fatal(stderr)
		}
	}
	if differ, n := requestsDiff(t, alone, both, "true"); n != 2 || differ != 0 {
		t.Errorf("%d of the first batch's %d requests changed when the same name was appended", differ, n)
	}
	// A record's source names its file as its key does.
	if bad := queryStrings(t, `SELECT request_id, gateway_source FROM read_parquet('`+filepath.Join(both, "requests.parquet")+
		`') WHERE gateway_source IS DISTINCT FROM substr(request_id, 10)`); len(bad) > 0 {
		t.Errorf("gateway_source is not the file:line of the key: %q", bad)
	}
	got := queryStrings(t, `SELECT request_id FROM read_parquet('`+filepath.Join(both, "requests.parquet")+`') ORDER BY start`)
	want := []string{"unjoined:" + gw + ":1", "unjoined:" + gw + ":2",
		"unjoined:" + gw + "@2:1", "unjoined:" + gw + "@2:2", "unjoined:" + gw + "@2:3"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("request IDs:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// No source spans the week between two batches of traced records (whose
	// sources order a trace's records: OpenTelemetry gateway spans) under
	// the same names: the analysis splits there, each batch's requests in a
	// part of their own. (A store of gateway records without request IDs,
	// as above, is matched by time and never split: docs/partitions.md.)
	sim, traced := filepath.Join(dir, "sim"), filepath.Join(dir, "traced")
	for k, start := range []string{"2026-11-23T10:00:00Z", "2026-11-30T10:00:00Z"} {
		if code, _, stderr := runCLI(t, "simulate", "--out", sim, "--requests", "600", "--seed", fmt.Sprint(k+1),
			"--start", start, "--formats", "gateway=otel-gateway"); code != 0 {
			t.Fatal(stderr)
		}
		args := []string{"ingest", "-q", "--client", filepath.Join(sim, "client"), "--gateway", filepath.Join(sim, "gateway"),
			"--server", filepath.Join(sim, "server"), "--out", traced}
		if k > 0 {
			args = append(args, "--append")
		}
		if code, _, stderr := runCLI(t, args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	analyzeParts(t, traced, 2, 0, 1)
	for i, want := range []string{"600 2026-11-23", "600 2026-11-30"} {
		n := queryStrings(t, fmt.Sprintf(`SELECT count(*), min(start)::DATE || '/' || max(start)::DATE FROM read_parquet('%s')`,
			filepath.Join(traced, "requests", fmt.Sprintf("part-%d-of-2.parquet", i))))
		if w := want + "/" + want[4:]; len(n) != 1 || n[0] != w {
			t.Errorf("part %d of 2 holds %v (requests, first/last day), want %s", i, n, w)
		}
	}
}

// windowStore ingests three days of hand-built records (and a fourth day,
// 2026-11-26, far outside any window used) into a store and returns it.
// Per day D of 27, 28, 29: requests D-a at 12:00 and D-b at 18:00, with all
// three tiers. And at the edges of the 29th:
//   - edge-in: client start 2026-11-29T00:00:00.05Z, its server's clock
//     100 ms behind, so the server record is in date=2026-11-28;
//   - edge-late: client start 23:59:59.5Z on the 29th, server arrival at
//     00:00:00.1Z on the 30th;
//   - edge-out: client start 2026-11-30T00:00:00.2Z, past the window.
func windowStore(t *testing.T) (out string) {
	t.Helper()
	dir := t.TempDir()
	var c, g, s []string
	add := func(id, start, gwStart, arrival string) {
		c = append(c, fmt.Sprintf(`{"request_id":%q,"start":%q,"end":%q}`, id, start, add2s(t, start)))
		g = append(g, fmt.Sprintf(`{"request_id":%q,"start":%q,"end":%q}`, id, gwStart, add2s(t, gwStart)))
		s = append(s, fmt.Sprintf(`{"request_id":%q,"arrival":%q,"scheduled":%q,"end":%q}`, id, arrival, arrival, add2s(t, arrival)))
	}
	for _, d := range []string{"26", "27", "28", "29"} {
		add(d+"-a", "2026-11-"+d+"T12:00:00Z", "2026-11-"+d+"T12:00:00.01Z", "2026-11-"+d+"T12:00:00.02Z")
		add(d+"-b", "2026-11-"+d+"T18:00:00Z", "2026-11-"+d+"T18:00:00.01Z", "2026-11-"+d+"T18:00:00.02Z")
	}
	add("edge-in", "2026-11-29T00:00:00.05Z", "2026-11-29T00:00:00.06Z", "2026-11-28T23:59:59.98Z")
	add("edge-late", "2026-11-29T23:59:59.5Z", "2026-11-29T23:59:59.6Z", "2026-11-30T00:00:00.1Z")
	add("edge-out", "2026-11-30T00:00:00.2Z", "2026-11-30T00:00:00.3Z", "2026-11-30T00:00:00.4Z")
	out = filepath.Join(dir, "out")
	cf := writeLines(t, dir, "c.jsonl", c...)
	gf := writeLines(t, dir, "g.jsonl", g...)
	sf := writeLines(t, dir, "s.jsonl", s...)
	if code, _, stderr := runCLI(t, "ingest", "--client", "native:"+cf, "--gateway", "native:"+gf, "--server", "native:"+sf, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	return out
}

// add2s is an RFC 3339 time 2 s after ts.
func add2s(t *testing.T, ts string) string {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t.Fatal(err)
	}
	return v.Add(2e9).Format("2006-01-02T15:04:05.999999999Z07:00")
}

// TestWindow: analyze --from/--to keeps the requests that start in the
// window, joins the ones whose records straddle its edges, and does not
// read the partitions outside it (they are made unreadable, and the
// analysis of the window still succeeds, while that of the whole store
// fails on them); report covers that window, or a window within it, and
// refuses one outside it.
func TestWindow(t *testing.T) {
	t.Parallel()
	out := windowStore(t)
	var parts []string
	for _, tier := range []string{"client", "gateway", "server"} {
		p, _ := filepath.Glob(filepath.Join(out, tier, "date=2026-11-26", "*.parquet"))
		parts = append(parts, p...)
	}
	if len(parts) != 3 {
		t.Fatalf("parts of the 26th: %v", parts)
	}
	for _, p := range parts {
		os.WriteFile(p, []byte("not parquet: must not be read"), 0o644)
	}
	if code, _, _ := runCLI(t, "analyze", out); code != 1 {
		t.Fatalf("analyze of the whole store read the unreadable parts without failing: exit %d", code)
	}
	code, stdout, stderr := runCLI(t, "analyze", "--from", "2026-11-29", "--to", "2026-11-30T00:00:00Z", out)
	if code != 0 {
		t.Fatalf("analyze of the 29th: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "4 requests (client 4, gateway 4, server 4, all three 4)") {
		t.Errorf("analyze: %s", stdout)
	}
	got := queryStrings(t, "SELECT request_id, has_client AND has_gateway AND has_server, server_e2e_ms FROM '"+filepath.Join(out, "requests.parquet")+"' ORDER BY request_id")
	if want := "29-a true 2000|29-b true 2000|edge-in true 2000|edge-late true 2000"; strings.Join(got, "|") != want {
		t.Errorf("requests of the 29th: %s, want %s", strings.Join(got, "|"), want)
	}

	// The report covers the analyzed window, or a window within it.
	code, _, stderr = runCLI(t, "report", "--format", "md", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	for _, id := range []string{"28-b", "edge-out"} {
		if strings.Contains(string(md), id) {
			t.Errorf("the report of the 29th names %s", id)
		}
	}
	if code, _, stderr := runCLI(t, "report", "--format", "md", "--from", "2026-11-29T06:00:00Z", "--to", "2026-11-29T23:00:00Z", out); code != 0 {
		t.Errorf("report within the window: exit %d: %s", code, stderr)
	}
	md, _ = os.ReadFile(filepath.Join(out, "report.md"))
	if !strings.Contains(string(md), "29-a") || strings.Contains(string(md), "edge-in") {
		t.Errorf("report of 06:00–23:00 on the 29th: want 29-a and not edge-in among its requests")
	}
	if code, _, stderr := runCLI(t, "report", "--from", "2026-11-28", out); code != 1 || !strings.Contains(stderr, "outside the analyzed window") {
		t.Errorf("report outside the window: exit %d: %s", code, stderr)
	}
	for _, bad := range [][]string{{"--from", "yesterday"}, {"--from", "2026-11-30", "--to", "2026-11-29"}} {
		if code, _, stderr := runCLI(t, append([]string{"analyze", out}, bad...)...); code != 2 {
			t.Errorf("analyze %v: exit %d: %s", bad, code, stderr)
		}
	}
}

// TestStoreReadByPlainDuckDB: the store is read as it is by an engine that
// knows nothing of infertrace, with the query docs/store.md starts from.
func TestStoreReadByPlainDuckDB(t *testing.T) {
	t.Parallel()
	out := windowStore(t)
	got := queryStrings(t, strings.ReplaceAll(`
SELECT date, count(*) AS rows, min(start_time), max(start_time)
FROM read_parquet('OUT/client/*/*.parquet', hive_partitioning = true)
WHERE date BETWEEN DATE '2026-11-28' AND DATE '2026-11-29'
GROUP BY date ORDER BY date`, "OUT", out))
	want := []string{
		"2026-11-28T00:00:00Z 2 2026-11-28T12:00:00Z 2026-11-28T18:00:00Z",
		"2026-11-29T00:00:00Z 4 2026-11-29T00:00:00.05Z 2026-11-29T23:59:59.5Z",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("per day:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// docs/store.md's starting query: the three tiers joined by request ID.
	got = queryStrings(t, strings.ReplaceAll(`
SELECT c.request_id,
       (epoch_ns(c.end_time) - epoch_ns(c.start_time)) / 1e6 AS client_e2e_ms,
       (epoch_ns(s.end_time) - epoch_ns(s.scheduled_time)) / 1e6 AS model_ms
FROM read_parquet('OUT/client/*/*.parquet', hive_partitioning = true) c
JOIN read_parquet('OUT/gateway/*/*.parquet', hive_partitioning = true) g USING (request_id)
JOIN read_parquet('OUT/server/*/*.parquet', hive_partitioning = true) s USING (request_id)
WHERE c.date = DATE '2026-11-27'
ORDER BY c.request_id`, "OUT", out))
	if want := "27-a 2000 2000|27-b 2000 2000"; strings.Join(got, "|") != want {
		t.Errorf("joined: %s, want %s", strings.Join(got, "|"), want)
	}
}
