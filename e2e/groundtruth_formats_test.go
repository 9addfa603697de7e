package e2e

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/simulate"
)

// The ground truth through the inference servers' own formats: simulate
// with each replica writing another server format (vllm-otlp, tgi, triton,
// sglang-metrics, trtllm), run the CLI on the directories as they are
// (formats sniffed), and compare requests.parquet with the truth, per
// format, for what that format can give:
//
//	format          request ID  instants                  durations logged
//	vllm-otlp       yes         arrival (+ derived)       e2e, queue, ttft, prefill, decode, inference
//	sglang-metrics  yes         arrival … end             e2e, queue, inference (+ derived ttft, prefill, decode)
//	tgi             no: matched arrival, scheduled, end   e2e, queue, inference (no first token)
//	                by time     (TGI host clock)
//	triton          yes         none (steady clock)       e2e, queue, compute (no first token)
//	trtllm          no, never   none (steady clock)       e2e, queue, ttft, prefill, decode
//
// So every component is checked for vllm-otlp and sglang-metrics; for tgi
// and triton every one but those that need the server's first token
// (server_ttft, ttft_queue, ttft_model, ttft_application, ttft_network),
// which must be NULL; for trtllm none that needs the server (its rows join
// no request: the server tier must be absent), only client and gateway.
// Triton's QUEUE and COMPUTE leave out its frontend's microseconds (see
// simulate's servers.go), far inside the per-request tolerance; so does
// TGI's queue_time, which leaves out the validation_time the simulator
// carves from the wait (20 µs + 5 ns per prompt token) and which the
// analysis counts as server overhead, in application.
//
// A component the format can give but the analysis does not produce yet
// (all NULL for that format) is skipped with the reason, as is the TGI
// match when the analysis matches no TGI record; everything the pipeline
// produces is checked. The TGI match is measured on the simulator's own
// record of which request each TGI line is (server_lines.csv): the share of
// TGI records attached to the right request, at steady load and in the
// burst, which must be at least 99% at steady load for the records a match
// by time can place (Success lines of requests with a gateway record; see
// gtfTGIAccuracy). TestGroundTruthTGIFleet measures it with every replica
// on TGI.

const gtfRequests = 4000

// gtfFormats is the --formats value: the five replicas get one each, in the
// order simulate lists them (llama-3.1-8b-0, -1, -2 (the cold one),
// llama-3.1-70b-0, -1).
var gtfFormats = []string{simulate.FormatVLLMOTLP, simulate.FormatTGI, simulate.FormatTriton, simulate.FormatSGLangMetrics, simulate.FormatTRTLLM}

// gtfServerTTFT are the components that need the server's first token.
var gtfServerTTFT = []string{"server_ttft_ms", "ttft_queue_ms", "ttft_model_ms", "ttft_application_ms", "ttft_network_ms"}

// gtfCannot lists the components a format cannot give: those that need the
// server's first token (tgi, triton), or the server at all (trtllm, whose
// rows join no request).
func gtfCannot(format string) map[string]bool {
	no := map[string]bool{}
	switch format {
	case "tgi", "triton":
		for _, c := range gtfServerTTFT {
			no[c] = true
		}
	case "trtllm":
		for _, c := range gtComponents {
			for _, tier := range c.tiers {
				if tier == "server" {
					no[c.col] = true
				}
			}
		}
	}
	return no
}

func gtfQueryInt(t *testing.T, db *sql.DB, q string, args ...any) int64 {
	t.Helper()
	var n sql.NullInt64
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n.Int64
}

// gtfSimulateAndRun simulates gtfRequests requests with the replicas
// writing formats (simulate's --formats) and runs the CLI on the
// directories as they are, formats sniffed. The returned database has the
// truth and requests views of openTruthDB and:
//
//	replica_format  replica, format, file: what each replica wrote
//	lines           server_lines.csv: the request behind each intact record
//	truth_f         the truth with server_format_true, its replica's format
//	server_rows     the server tier as ingested
//	source_of       per request with a server record: the request that
//	                record really is (true_id)
//	tgi_right       per intact TGI record: whether its request's kept server
//	                record is that line (right_match), or another's (wrong_match)
func gtfSimulateAndRun(t *testing.T, requests, seed int, formats []string) *sql.DB {
	t.Helper()
	simDir, outDir := filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "simulate", "--out", simDir, "--requests", fmt.Sprint(requests), "--seed", fmt.Sprint(seed),
		"--formats", strings.Join(formats, ","))
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// What the checks read is the analysis: no report.
	stdout = ingestAndAnalyze(t, outDir,
		"--client", filepath.Join(simDir, "client", "*"),
		"--gateway", filepath.Join(simDir, "gateway", "*"),
		"--server", filepath.Join(simDir, "server", "*"))
	t.Logf("simulated %d requests with seed %d, servers writing %v; %s", requests, seed, formats, stdout)
	db := openTruthDB(t, simDir, outDir)

	// Which format each replica wrote, from its file name
	// (<replica>.<format>.json[l][.gz]).
	files, err := os.ReadDir(filepath.Join(simDir, "server"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE replica_format (replica VARCHAR, format VARCHAR, file VARCHAR)"); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(f.Name(), ".gz")
		name = strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")
		dot := strings.LastIndexByte(name, '.')
		if dot < 0 {
			t.Fatalf("server/%s: not a server format's file", f.Name())
		}
		if _, err := db.Exec("INSERT INTO replica_format VALUES (?, ?, ?)", name[:dot], name[dot+1:], "server/"+f.Name()); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{
		`CREATE VIEW lines AS SELECT * FROM read_csv('` + filepath.Join(simDir, "server_lines.csv") + `', header = true,
		    columns = {'file': 'VARCHAR', 'line': 'BIGINT', 'request_id': 'VARCHAR', 'engine_id': 'BIGINT', 'format': 'VARCHAR'})`,
		`CREATE VIEW truth_f AS SELECT t.*, f.format AS server_format_true FROM truth AS t JOIN replica_format AS f USING (replica)`,
		// The server table as ingested, before any analysis.
		`CREATE VIEW server_rows AS SELECT * FROM read_parquet('` + filepath.Join(outDir, "server", "*", "*.parquet") + `', union_by_name = true, hive_partitioning = false)`,
		// The request each kept server record really is (server_source is
		// the file as ingested, under simDir, and the line).
		`CREATE TABLE source_of AS
		 SELECT r.request_id, l.request_id AS true_id, l.format
		 FROM requests AS r JOIN lines AS l
		   ON r.server_source = '` + simDir + `/' || l.file || ':' || l.line
		 WHERE l.format <> 'trtllm'`,
		// A TGI record is attached to the right request when the request's
		// kept server record is that line; to a wrong one when another
		// request's is.
		`CREATE TABLE tgi_right AS
		 SELECT l.request_id, l.file, l.line,
		        EXISTS (SELECT 1 FROM source_of AS s WHERE s.true_id = l.request_id AND s.request_id = l.request_id) AS right_match,
		        EXISTS (SELECT 1 FROM source_of AS s WHERE s.true_id = l.request_id AND s.request_id <> l.request_id) AS wrong_match
		 FROM lines AS l
		 WHERE l.format = 'tgi'`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}

	// The manifest: every server file read in the format it was written.
	rows, err := db.Query(`SELECT rf.file, rf.format, m.format
		FROM read_json('` + filepath.Join(outDir, "manifest.json") + `') AS j, unnest(j.files) AS u(m)
		JOIN replica_format AS rf ON ends_with(m.path, rf.file)`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var file, want, got string
		if err := rows.Scan(&file, &want, &got); err != nil {
			t.Fatal(err)
		}
		n++
		if got != want {
			t.Errorf("%s was read as %q, want %q", file, got, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(files) {
		t.Errorf("the manifest lists %d of the %d server files", n, len(files))
	}
	return db
}

// gtfTGIMatched counts the requests whose kept server record is a TGI line.
func gtfTGIMatched(t *testing.T, db *sql.DB) int64 {
	return gtfQueryInt(t, db, `SELECT count(*) FROM source_of WHERE format = 'tgi'`)
}

func TestGroundTruthServerFormats(t *testing.T) {
	t.Parallel()
	db := gtfSimulateAndRun(t, gtfRequests, 21, gtfFormats)
	if n := gtfQueryInt(t, db, "SELECT count(DISTINCT format) FROM replica_format"); n != int64(len(gtfFormats)) {
		t.Fatalf("%d server formats written, want %d", n, len(gtfFormats))
	}
	tgiMatched := gtfTGIMatched(t, db)
	for _, format := range gtfFormats {
		t.Run(format, func(t *testing.T) {
			gtfCheckFormat(t, db, format, tgiMatched)
		})
	}
	t.Run("tgi-matching", func(t *testing.T) {
		if tgiMatched == 0 {
			t.Skip("waits for the analysis: no TGI record is matched to a request (no requests.parquet row has a TGI line as its server_source)")
		}
		gtfTGIAccuracy(t, db, 0.99)
	})
	t.Run("trtllm-distribution", func(t *testing.T) { gtfTRTLLMDistribution(t, db) })
}

// gtfTRTLLMDistribution checks what TRT-LLM's rows can be checked on
// without a request ID: as a distribution, the durations the ingested rows
// hold (one per executor ID) against the truth of the requests the replica
// served, quantile by quantile. The server host's drift is the only
// difference.
func gtfTRTLLMDistribution(t *testing.T, db *sql.DB) {
	for _, m := range []struct{ row, truth, where string }{
		{"e2e_ns", "server_e2e_ms", "t.ttft_model_ms IS NOT NULL"}, // a 5xx logs no last token
		{"queue_ns", "queue_ms", "true"},
		{"ttft_ns", "server_ttft_ms", "t.server_ttft_ms IS NOT NULL"},
		{"prefill_ns", "ttft_model_ms", "t.ttft_model_ms IS NOT NULL"},
	} {
		var nRows, nTruth int64
		var got, want []float64
		err := db.QueryRow(`
			WITH rows AS (
			    SELECT any_value(`+m.row+`) / 1e6 AS v FROM server_rows
			    WHERE format = 'trtllm' AND `+m.row+` IS NOT NULL GROUP BY engine_request_id
			), tv AS (
			    SELECT t.`+m.truth+` AS v FROM truth_f AS t
			    WHERE t.server_format_true = 'trtllm' AND t.has_server AND `+m.where+`
			)
			SELECT (SELECT count(*) FROM rows), (SELECT count(*) FROM tv),
			       (SELECT quantile_cont(v, [0.5, 0.95, 0.99]) FROM rows)::DOUBLE[],
			       (SELECT quantile_cont(v, [0.5, 0.95, 0.99]) FROM tv)::DOUBLE[]`).Scan(&nRows, &nTruth, &floatList{&got}, &floatList{&want})
		if err != nil {
			t.Fatal(err)
		}
		if nRows != nTruth || nRows < 300 {
			t.Errorf("%s: %d trtllm rows, %d requests with the value in the truth", m.row, nRows, nTruth)
			continue
		}
		var qs []string
		for i, p := range []string{"P50", "P95", "P99"} {
			d := math.Abs(got[i] - want[i])
			if d > gtQuantileFloorMs && d > gtQuantileRel*math.Abs(want[i]) {
				t.Errorf("%s %s: %.3f ms, truth %.3f", m.row, p, got[i], want[i])
			}
			qs = append(qs, fmt.Sprintf("%s %.3f/%.3f", p, got[i], want[i]))
		}
		t.Logf("trtllm %s over %d executor IDs vs the truth's %s: %s (measured/truth, ms)", m.row, nRows, m.truth, strings.Join(qs, ", "))
	}
}

// floatList scans a DuckDB DOUBLE[] into a []float64.
type floatList struct{ p *[]float64 }

func (f *floatList) Scan(src any) error {
	list, ok := src.([]any)
	if !ok {
		return fmt.Errorf("want a list, got %T", src)
	}
	out := make([]float64, len(list))
	for i, v := range list {
		x, ok := v.(float64)
		if !ok {
			return fmt.Errorf("want DOUBLE, got %T", v)
		}
		out[i] = x
	}
	*f.p = out
	return nil
}

// TestGroundTruthTGIFleet is the hard case for the TGI match: every
// replica writes TGI, so no server record carries a request ID and the
// candidates of one TGI line come from the traffic of all five replicas.
// 3000 requests keep it fast and still give thousands of steady records and
// hundreds in the burst.
func TestGroundTruthTGIFleet(t *testing.T) {
	t.Parallel()
	db := gtfSimulateAndRun(t, 3000, 22, []string{simulate.FormatTGI})
	tgiMatched := gtfTGIMatched(t, db)
	t.Run("tgi", func(t *testing.T) { gtfCheckFormat(t, db, simulate.FormatTGI, tgiMatched) })
	t.Run("tgi-matching", func(t *testing.T) {
		if tgiMatched == 0 {
			t.Skip("waits for the analysis: no TGI record is matched to a request (no requests.parquet row has a TGI line as its server_source)")
		}
		gtfTGIAccuracy(t, db, 0.99)
	})
}

// gtfCheckFormat compares, for the requests served by the replica writing
// format, every component with the truth.
func gtfCheckFormat(t *testing.T, db *sql.DB, format string, tgiMatched int64) {
	cannot := gtfCannot(format)
	// serverOK: the requests whose server record the pipeline can and must
	// hold: has_server in the truth, and for TGI the request its TGI line
	// was matched to (the match itself is measured in tgi-matching).
	serverOK := "t.has_server"
	switch format {
	case "tgi":
		if tgiMatched == 0 {
			t.Logf("tgi: the server-side components wait for the TGI match; only client and gateway components are checked")
			serverOK = "false"
		} else {
			serverOK = "t.has_server AND coalesce(x.right_match, false)"
		}
	case "trtllm":
		serverOK = "false"
	}
	base := `FROM truth_f AS t JOIN requests AS r USING (request_id) LEFT JOIN tgi_right AS x USING (request_id)
		WHERE t.server_format_true = '` + format + `'`

	// has_server: as the truth wherever the format carries the request ID;
	// never for trtllm; for TGI only through a match.
	switch format {
	case "trtllm":
		if n := gtfQueryInt(t, db, "SELECT count(*) "+base+" AND r.has_server"); n != 0 {
			t.Errorf("trtllm: %d requests have a server record; /perf_metrics rows carry no request ID", n)
		}
	case "tgi":
	default:
		if n := gtfQueryInt(t, db, "SELECT count(*) "+base+" AND r.has_server IS DISTINCT FROM t.has_server"); n != 0 {
			t.Errorf("%s: has_server differs from the truth on %d requests", format, n)
		}
	}
	if n := gtfQueryInt(t, db, "SELECT count(*) "+base); n < 300 {
		t.Fatalf("%s: only %d requests", format, n)
	}

	for _, c := range gtComponents {
		t.Run(c.col, func(t *testing.T) {
			var need []string
			for _, tier := range c.tiers {
				if tier == "server" {
					need = append(need, serverOK)
				} else {
					need = append(need, "t.has_"+tier)
				}
			}
			cond := strings.Join(need, " AND ")
			if cannot[c.col] {
				n := gtfQueryInt(t, db, "SELECT count(*) "+base+" AND r."+c.col+" IS NOT NULL")
				if n != 0 {
					t.Errorf("%s has %d values, but %s logs nothing it can come from", c.col, n, format)
				}
				t.Logf("NULL as it must be: %s cannot give %s", format, c.col)
				return
			}
			withServer := false
			for _, tier := range c.tiers {
				withServer = withServer || tier == "server"
			}
			if withServer && serverOK == "false" {
				t.Skipf("waits for the analysis: %s for %s needs the TGI match", c.col, format)
			}
			if withServer {
				if n := gtfQueryInt(t, db, "SELECT count(*) "+base+" AND r."+c.col+" IS NOT NULL AND "+cond); n == 0 {
					t.Skipf("waits for the analysis: %s has no %s value from %s records", c.col, format, format)
				}
			}
			rows, err := db.Query(`SELECT request_id, t.` + c.col + `, r.` + c.col + `, ` + cond + `, t.phase ` + base + ` ORDER BY request_id`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var compared, nulls, bad int
			var worst float64
			var tv, rv []float64
			for rows.Next() {
				var id, phase string
				var want, got sql.NullFloat64
				var tiers bool
				if err := rows.Scan(&id, &want, &got, &tiers, &phase); err != nil {
					t.Fatal(err)
				}
				present := want.Valid && tiers
				switch {
				case present && !got.Valid:
					bad++
					if bad <= 10 {
						t.Errorf("%s: NULL, truth %.3f with every tier it needs logged", id, want.Float64)
					}
				case !present && got.Valid && format != "tgi":
					// For TGI a request with a wrong match may hold a
					// value: that is the match's error, counted there.
					bad++
					if bad <= 10 {
						t.Errorf("%s: %.3f, want NULL (truth %v, tiers logged: %v)", id, got.Float64, want, tiers)
					}
				case !present:
					nulls++
				default:
					compared++
					d := math.Abs(got.Float64 - want.Float64)
					worst = math.Max(worst, d)
					if d > gtPerRequestMs {
						bad++
						if bad <= 10 {
							t.Errorf("%s: %.3f, truth %.3f (off by %.3f ms)", id, got.Float64, want.Float64, d)
						}
					}
					tv, rv = append(tv, want.Float64), append(rv, got.Float64)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if compared < 100 {
				t.Errorf("compared on only %d requests", compared)
			}
			// P50, P95, P99 over the compared requests.
			var qs []string
			for _, p := range []float64{0.5, 0.95, 0.99} {
				a, b := quantileCont(tv, p), quantileCont(rv, p)
				d := math.Abs(a - b)
				if d > gtQuantileFloorMs && d > gtQuantileRel*math.Abs(a) {
					t.Errorf("P%.0f %.3f, truth %.3f", 100*p, b, a)
				}
				qs = append(qs, fmt.Sprintf("P%.0f %.3f/%.3f", 100*p, b, a))
			}
			t.Logf("%s %s: %d requests within %.1f ms (worst %.4f ms), %d NULL where a needed tier is missing; %s (measured/truth)",
				format, c.col, compared, gtPerRequestMs, worst, nulls, strings.Join(qs, ", "))
		})
	}
}

// quantileCont is DuckDB's quantile_cont: linear interpolation between the
// closest ranks.
func quantileCont(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	h := p * float64(len(s)-1)
	lo := math.Floor(h)
	if int(lo)+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[int(lo)] + (h-lo)*(s[int(lo)+1]-s[int(lo)])
}

// gtfTGIAccuracy measures the TGI match per phase: of the intact TGI
// records (server_lines.csv), the share attached to their own request.
// Over all of them, and over the matchable ones: a "Success" line (the ERROR
// line of a 5xx has a time but no duration to match by) of a request with
// a gateway record (the match is to gateway records). It asserts the
// matchable share at steady load, and logs ERROR lines and wrong matches
// apart.
func gtfTGIAccuracy(t *testing.T, db *sql.DB, minSteady float64) {
	rows, err := db.Query(`
		WITH rec AS (
		    SELECT x.*, tr.phase,
		           tr.has_gateway AND tr.imperfection NOT LIKE '%error:5xx%' AS matchable,
		           tr.imperfection LIKE '%error:5xx%' AS error_line
		    FROM tgi_right AS x JOIN truth AS tr USING (request_id)
		)
		SELECT phase, count(*), count(*) FILTER (WHERE right_match),
		       count(*) FILTER (WHERE matchable), count(*) FILTER (WHERE matchable AND right_match),
		       count(*) FILTER (WHERE error_line), count(*) FILTER (WHERE error_line AND right_match),
		       count(*) FILTER (WHERE wrong_match)
		FROM rec GROUP BY phase ORDER BY phase`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString("TGI records attached to the right request, by the truth's phase\n")
	b.WriteString("(matchable: a Success line of a request with a gateway record; ERROR: the line of a 5xx, no duration)\n")
	b.WriteString("phase    records  right   share | matchable  right   share | ERROR lines  right | to another request\n")
	found := map[string]float64{}
	for rows.Next() {
		var phase string
		var n, right, nm, rightM, ne, rightE, wrong int64
		if err := rows.Scan(&phase, &n, &right, &nm, &rightM, &ne, &rightE, &wrong); err != nil {
			t.Fatal(err)
		}
		share, shareM := float64(right)/float64(n), float64(rightM)/float64(max(nm, 1))
		found[phase] = shareM
		fmt.Fprintf(&b, "%-8s %7d %6d %6.2f%% | %9d %6d %6.2f%% | %11d %6d | %d\n", phase, n, right, 100*share, nm, rightM, 100*shareM, ne, rightE, wrong)
		if wrong > 0 {
			t.Logf("%s: %d TGI records attached to another request", phase, wrong)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Log(b.String())
	steady, ok := found["steady"]
	if !ok {
		t.Fatal("no TGI record at steady load")
	}
	if _, ok := found["burst"]; !ok {
		t.Error("no TGI record in the burst")
	}
	if steady < minSteady {
		t.Errorf("at steady load %.2f%% of the matchable TGI records are attached to the right request, want >= %.0f%%", 100*steady, 100*minSteady)
	}
}

// TestGroundTruthTGIBehindEnvoyDefault: every gateway writes Envoy's
// default access log, which has the request's start and duration but no
// upstream start or end, in front of TGI replicas, which log no request ID.
// The match must still find each TGI record's request, on the gateway's own
// start and end with tolerances estimated from the data. Envoy logs whole
// milliseconds and its span holds the gateway's own work, so a few records
// stay unmatched where two candidates fit (97.9% of the matchable ones are
// matched right at steady load with this seed, none to another request);
// the test asks for 95%.
func TestGroundTruthTGIBehindEnvoyDefault(t *testing.T) {
	t.Parallel()
	db := gtfSimulateAndRun(t, 3000, 23, []string{simulate.FormatTGI, "gateway=" + simulate.FormatEnvoy})
	if gtfTGIMatched(t, db) == 0 {
		t.Fatal("no TGI record is matched to a request behind Envoy's default log")
	}
	gtfTGIAccuracy(t, db, 0.95)
}
