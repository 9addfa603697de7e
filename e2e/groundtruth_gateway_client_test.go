package e2e

import (
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/simulate"
)

// The ground truth through the gateways' and clients' own formats: simulate
// with the gateway hosts writing envoy (default text), envoy-json (typed
// json_format), nginx (escape=json) or otel-gateway (OTLP spans) and the
// clients aiperf or jsonl (with the client.toml mapping simulate writes),
// run the CLI on the directories (formats sniffed; jsonl named and read
// with --map), and compare requests.parquet with the truth per format.
//
// Expected values. The truth holds true durations; a host logs durations of
// its own clock, which drifts by DriftPPM (clocks.csv). So each component
// is compared with the truth's durations scaled by the drift of the host
// that measured each part (client, gateway, replica): what a perfect log of
// that host would give. What is left is the format's resolution:
//
//	format        units                          components it moves, and by how much
//	aiperf        epoch ns, ms floats of ns      none (< 1 µs)
//	jsonl         epoch µs, truncated            none (< 2 µs per difference)
//	envoy-json    µs (START_TIME %6f, us         none (< 2 µs)
//	              COMMON_DURATION), truncated
//	envoy         ms, truncated (%START_TIME%,   gateway_e2e, network, application: within
//	              %DURATION%)                    1 ms, one-sided. The end is START_TIME +
//	                                             DURATION, so gateway_e2e is DURATION alone:
//	                                             one truncation, short by [0, 1) ms, not two
//	                                             (application short, network long by as
//	                                             much). No upstream times: ttft_application
//	                                             and ttft_network must be NULL
//	nginx         s with ms resolution ($msec,   gateway_e2e, network, application,
//	              $request_time, upstream times) ttft_application, ttft_network: within 1 ms.
//	                                             request_time is a difference of two
//	                                             ms-truncated readings (each early by [0, 1)),
//	                                             so it is off by (-1, 1) ms, not 2; every
//	                                             component holds it once (the upstream
//	                                             response time cancels out of the TTFT split)
//	otel-gateway  OTLP ns                        none
//
// NGINX logs when the response is sent and measures the upstream from
// its own start, so the reader places the upstream's end at the log write
// (see ingest/formats/nginx.go): what the gateway spent after the upstream
// finished (flushing, 0.3–1.5 ms here) is counted in ttft_application
// rather than ttft_network. So for nginx rows the expected
// ttft_application is the gateway's whole time less the server's
// (application_ms) and ttft_network is correspondingly smaller; the test
// logs how far that is from the truth's own split. Per-request bound: the
// format's units from the table plus 0.01 ms (the native server log's
// microsecond rounding and the drift's nanosecond rounding).
//
// Per slice (all, model × use_case, phase, over the rows of that format's
// gateway host) P50/P95/P99 of each component must be within 1% of the
// expected values' or within the unit floor: 1 ms for the components an
// integer-ms format moves, else 0.01 ms. (Against the truth unscaled by
// the drift, a difference of two hosts' durations can be off by more than
// 1% and 0.1 ms: 10 ppm of a 12 s request is 0.12 ms, a format-independent
// error the expected values take out.)

// gcFormatRun is one simulation: the --formats value, the formats its
// gateway and client hosts write, and the extra ingest flags it needs.
type gcFormatRun struct {
	formats  []string
	gateways map[string]string // gateway host -> format
	client   string            // every client's format
}

// gcSlack is what the native server log's µs rounding and the drift's ns
// rounding can add to any component.
const gcSlack = 0.01

// gcMsComponents are the components an integer-ms gateway format moves,
// with the range of measured − expected its units allow (ms, before
// gcSlack): Envoy's DURATION is truncated, so gateway_e2e can only come
// out short and network long; NGINX's request_time is a difference of two
// truncated readings, off either way.
var gcMsComponents = map[string]map[string][2]float64{
	simulate.FormatEnvoy: {"gateway_e2e_ms": {-1, 0}, "network_ms": {0, 1}, "application_ms": {-1, 0}},
	simulate.FormatNginx: {"gateway_e2e_ms": {-1, 1}, "network_ms": {-1, 1}, "application_ms": {-1, 1},
		"ttft_application_ms": {-1, 1}, "ttft_network_ms": {-1, 1}},
}

// gcCannot are the components a gateway format cannot give.
var gcCannot = map[string][]string{
	simulate.FormatEnvoy: {"ttft_application_ms", "ttft_network_ms"},
}

// gcExpected is the SQL expression of a component's expected value over
// truth t and the drift factors dc, dg, ds of the client, gateway and
// replica hosts, for a row of gateway format gf.
func gcExpected(col, gf string) string {
	ttftApp := "((t.ttft_application_ms + t.server_e2e_ms) * dg - t.server_e2e_ms * ds)"
	if gf == simulate.FormatNginx {
		// where the truth has a TTFT split (not for a 5xx)
		ttftApp = "(CASE WHEN t.ttft_application_ms IS NOT NULL THEN t.gateway_e2e_ms * dg - t.server_e2e_ms * ds END)"
	}
	switch col {
	case "client_e2e_ms", "client_ttft_ms":
		return "t." + col + " * dc"
	case "gateway_e2e_ms":
		return "t.gateway_e2e_ms * dg"
	case "network_ms":
		// NULL where the truth has none: a client that left before the gateway ended
		return "(CASE WHEN t.network_ms IS NOT NULL THEN t.client_e2e_ms * dc - t.gateway_e2e_ms * dg END)"
	case "application_ms":
		return "(t.gateway_e2e_ms * dg - t.server_e2e_ms * ds)"
	case "ttft_application_ms":
		return ttftApp
	case "ttft_network_ms":
		return "(t.client_ttft_ms * dc - t.server_ttft_ms * ds - " + ttftApp + ")"
	}
	return "t." + col + " * ds" // server_e2e, queue, model, server_ttft, ttft_queue, ttft_model
}

func gcSimulateAndRun(t *testing.T, fr gcFormatRun) *sql.DB {
	t.Helper()
	simDir, outDir := filepath.Join(t.TempDir(), "sim"), filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, "simulate", "--out", simDir, "--requests", fmt.Sprint(gtRequests), "--seed", "13",
		"--formats", strings.Join(fr.formats, ","))
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	client := []string{"--client", filepath.Join(simDir, "client", "*")}
	if fr.client == simulate.FormatJSONL {
		client = []string{"--client", "jsonl:" + filepath.Join(simDir, "client", "*"), "--map", filepath.Join(simDir, simulate.ClientMappingFile)}
	}
	// What the checks read is the analysis: no report.
	stdout = ingestAndAnalyze(t, outDir, append(client,
		"--gateway", filepath.Join(simDir, "gateway", "*"),
		"--server", filepath.Join(simDir, "server", "*"))...)
	t.Logf("simulated %d requests, --formats %s; %s", gtRequests, strings.Join(fr.formats, ","), stdout)
	db := openTruthDB(t, simDir, outDir)
	for _, s := range []string{
		`CREATE VIEW clocks AS SELECT * FROM read_csv('` + filepath.Join(simDir, "clocks.csv") + `', header = true,
		    columns = {'tier': 'VARCHAR', 'host': 'VARCHAR', 'offset_ms': 'DOUBLE', 'drift_ppm': 'DOUBLE', 'time_format': 'VARCHAR'})`,
		`CREATE TABLE gw_format (gateway VARCHAR, format VARCHAR)`,
		// The truth with each host's drift factor: a duration of true
		// length d reads d * (1 + ppm·1e-6) on that host.
		`CREATE VIEW truth_d AS
		 SELECT t.*, f.format AS gw_format,
		        1 + c.drift_ppm * 1e-6 AS dc, 1 + g.drift_ppm * 1e-6 AS dg, 1 + coalesce(s.drift_ppm, 0) * 1e-6 AS ds
		 FROM truth AS t
		 JOIN gw_format AS f USING (gateway)
		 JOIN clocks AS c ON c.tier = 'client' AND c.host = t.client
		 JOIN clocks AS g ON g.tier = 'gateway' AND g.host = t.gateway
		 LEFT JOIN clocks AS s ON s.tier = 'server' AND s.host = t.replica`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for gw, f := range fr.gateways {
		if _, err := db.Exec("INSERT INTO gw_format VALUES (?, ?)", gw, f); err != nil {
			t.Fatal(err)
		}
	}
	// gcCheck queries these some sixty times: each view read once into a
	// table of the same name (truth_d before the truth it reads), instead
	// of the Parquet and CSV files read and joined again by every query.
	for _, name := range []string{"truth_d", "truth", "requests"} {
		for _, s := range []string{
			"CREATE TABLE " + name + "_table AS SELECT * FROM " + name,
			"DROP VIEW " + name,
			"ALTER TABLE " + name + "_table RENAME TO " + name,
		} {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}

	// Every gateway and client file was read in the format it was written.
	want := map[string]string{
		simulate.FormatEnvoy: "envoy", simulate.FormatEnvoyJSON: "envoy", simulate.FormatNginx: "nginx",
		simulate.FormatOTelGateway: "otel-gateway", simulate.FormatAIPerf: "aiperf", simulate.FormatJSONL: "jsonl",
	}
	rows, err := db.Query(`SELECT m.tier, m.path, m.format FROM read_json('` + filepath.Join(outDir, "manifest.json") + `') AS j, unnest(j.files) AS u(m)
		WHERE m.tier IN ('client', 'gateway')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	files := 0
	for rows.Next() {
		var tier, path, got string
		if err := rows.Scan(&tier, &path, &got); err != nil {
			t.Fatal(err)
		}
		files++
		f := fr.client
		if tier == "gateway" {
			f = fr.gateways[strings.SplitN(filepath.Base(path), ".", 2)[0]]
		}
		if got != want[f] {
			t.Errorf("%s was read as %q, want %q (written as %s)", path, got, want[f], f)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if files != 8 {
		t.Errorf("the manifest lists %d client and gateway files, want 8", files)
	}
	return db
}

// gcCheck compares the requests with the truth for the rows whose gateway
// wrote each format, and for the client format over every row; it logs
// per format how much it compared.
func gcCheck(t *testing.T, db *sql.DB, fr gcFormatRun) {
	t.Helper()
	var bad []string
	add := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }

	// Tier presence, as in TestGroundTruth.
	var n, wrong int64
	if err := db.QueryRow(`
		SELECT count(*), count(*) FILTER (WHERE r.request_id IS NULL) +
		       count(*) FILTER (WHERE r.request_id IS NOT NULL AND NOT (t.has_client IS NOT DISTINCT FROM r.has_client
		         AND t.has_gateway IS NOT DISTINCT FROM r.has_gateway AND t.has_server IS NOT DISTINCT FROM r.has_server))
		FROM truth AS t LEFT JOIN requests AS r USING (request_id)
		WHERE t.has_client OR t.has_gateway OR t.has_server`).Scan(&n, &wrong); err != nil {
		t.Fatal(err)
	}
	if wrong > 0 {
		t.Errorf("%d of %d requests missing or with has_client/has_gateway/has_server unlike the truth", wrong, n)
	}
	if x := gtfQueryInt(t, db, `SELECT count(*) FROM requests WHERE request_id NOT IN (SELECT request_id FROM truth)`); x > 0 {
		t.Errorf("%d requests not in the truth", x)
	}

	type tally struct {
		requests, values, nulls int64
		worst                   map[string]float64
	}
	per := map[string]*tally{}
	for gw, gf := range fr.gateways {
		per[gw] = &tally{worst: map[string]float64{}}
		_ = gf
	}
	client := &tally{worst: map[string]float64{}}
	for gw, gf := range fr.gateways {
		cannot := map[string]bool{}
		for _, c := range gcCannot[gf] {
			cannot[c] = true
		}
		tl := per[gw]
		tl.requests = gtfQueryInt(t, db, `SELECT count(*) FROM truth_d AS t JOIN requests AS r USING (request_id) WHERE t.gateway = ?`, gw)
		for _, c := range gtComponents {
			var need []string
			for _, tier := range c.tiers {
				need = append(need, "t.has_"+tier)
			}
			rng := gcMsComponents[gf][c.col]
			lo, hi := rng[0]-gcSlack, rng[1]+gcSlack
			q := fmt.Sprintf(`SELECT request_id, %s, r.%s, %s FROM truth_d AS t JOIN requests AS r USING (request_id) WHERE t.gateway = ? ORDER BY request_id`,
				gcExpected(c.col, gf), c.col, strings.Join(need, " AND "))
			rows, err := db.Query(q, gw)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for rows.Next() {
				var id string
				var ev, rv sql.NullFloat64
				var tiers bool
				if err := rows.Scan(&id, &ev, &rv, &tiers); err != nil {
					t.Fatal(err)
				}
				want := ev.Valid && tiers && !cannot[c.col]
				switch {
				case want && !rv.Valid:
					add("%s (%s %s) %s: NULL, want %.3f", id, gw, gf, c.col, ev.Float64)
				case !want && rv.Valid:
					add("%s (%s %s) %s: %.3f, want NULL", id, gw, gf, c.col, rv.Float64)
				case !want:
					tl.nulls++
				default:
					sd := rv.Float64 - ev.Float64
					d := math.Abs(sd)
					tl.values++
					tl.worst[c.col] = math.Max(tl.worst[c.col], d)
					client.worst[c.col] = math.Max(client.worst[c.col], d)
					if strings.HasPrefix(c.col, "client_") {
						client.values++
					}
					if sd < lo || sd > hi {
						add("%s (%s %s) %s: %.3f, want %.3f%+.2f…%+.2f ms (off by %+.3f)", id, gw, gf, c.col, rv.Float64, ev.Float64, lo, hi, sd)
					}
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	// Per slice quantiles, per gateway format.
	var quantiles, floorUsed int64
	worstRel := 0.0
	for gw, gf := range fr.gateways {
		for _, c := range gtComponents {
			floor := gcSlack
			if _, ms := gcMsComponents[gf][c.col]; ms {
				floor = 1 + gcSlack
			}
			q := fmt.Sprintf(`
				WITH pairs AS (
				    SELECT t.model, t.use_case, t.phase, %s AS tv, r.%s AS rv
				    FROM truth_d AS t JOIN requests AS r USING (request_id)
				    WHERE t.gateway = ?
				), q AS (
				    SELECT CASE WHEN grouping(model, use_case) = 0 THEN 'model=' || model || ', use_case=' || use_case
				                WHEN grouping(phase) = 0 THEN 'phase=' || phase ELSE 'all' END AS slice,
				           count(*) AS n, quantile_cont(tv, [0.5, 0.95, 0.99]) AS tq, quantile_cont(rv, [0.5, 0.95, 0.99]) AS rq
				    FROM pairs WHERE tv IS NOT NULL AND rv IS NOT NULL
				    GROUP BY GROUPING SETS ((), (model, use_case), (phase))
				)
				SELECT slice, n, p, tq[i], rq[i] FROM q, (VALUES (1, 'P50'), (2, 'P95'), (3, 'P99')) AS x(i, p) ORDER BY slice, i`,
				gcExpected(c.col, gf), c.col)
			rows, err := db.Query(q, gw)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for rows.Next() {
				var slice, p string
				var n int64
				var tqn, rqn sql.NullFloat64
				if err := rows.Scan(&slice, &n, &p, &tqn, &rqn); err != nil {
					t.Fatal(err)
				}
				if n == 0 {
					continue // a component the format cannot give
				}
				tq, rq := tqn.Float64, rqn.Float64
				quantiles++
				d := math.Abs(rq - tq)
				rel := d / math.Max(math.Abs(tq), 1e-9)
				switch {
				case rel <= gtQuantileRel:
					worstRel = math.Max(worstRel, rel)
				case d <= floor:
					floorUsed++
				default:
					add("%s %s %s %s %s (n=%d): %.3f, truth %.3f (off by %.2f%%, more than %.1f ms)", gw, gf, slice, c.col, p, n, rq, tq, 100*rel, floor)
				}
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}

	for gw, gf := range fr.gateways {
		tl := per[gw]
		var worst []string
		for _, c := range gtComponents {
			if w, ok := tl.worst[c.col]; ok && (strings.Contains(c.col, "gateway") || strings.Contains(c.col, "network") || strings.Contains(c.col, "application")) {
				worst = append(worst, fmt.Sprintf("%s %.3f", c.col, w))
			}
		}
		t.Logf("gateway %s (%s): %d requests, %d component values compared, %d NULL where a tier is missing or the format cannot give it; worst |error| ms: %s",
			gw, gf, tl.requests, tl.values, tl.nulls, strings.Join(worst, ", "))
		if tl.requests < 1000 || tl.values < 10000 {
			t.Errorf("gateway %s (%s): compared only %d requests, %d values", gw, gf, tl.requests, tl.values)
		}
	}
	t.Logf("client (%s): %d client_e2e/client_ttft values compared; worst |error| client_e2e %.4f ms, client_ttft %.4f ms",
		fr.client, client.values, client.worst["client_e2e_ms"], client.worst["client_ttft_ms"])
	t.Logf("%d per-slice quantiles within %.0f%% (worst %.3f%%; %d more within the floor)", quantiles, 100*gtQuantileRel, 100*worstRel, floorUsed)
	if client.values < 3000 {
		t.Errorf("client (%s): only %d values compared", fr.client, client.values)
	}
	for i, b := range bad {
		if i == 30 {
			t.Errorf("... and %d more mismatches", len(bad)-i)
			break
		}
		t.Error(b)
	}
}

func TestGroundTruthEnvoyNginxAIPerf(t *testing.T) {
	t.Parallel()
	fr := gcFormatRun{
		formats:  []string{"gw-1=" + simulate.FormatEnvoy, "gw-2=" + simulate.FormatNginx, "client=" + simulate.FormatAIPerf},
		gateways: map[string]string{"gw-1": simulate.FormatEnvoy, "gw-2": simulate.FormatNginx},
		client:   simulate.FormatAIPerf,
	}
	db := gcSimulateAndRun(t, fr)
	gcCheck(t, db, fr)

	// What NGINX cannot see: the gateway's time after the upstream's end,
	// counted in ttft_application instead of ttft_network.
	var n int64
	var mean, max sql.NullFloat64
	if err := db.QueryRow(`SELECT count(*), avg(r.ttft_application_ms - t.ttft_application_ms), max(r.ttft_application_ms - t.ttft_application_ms)
		FROM truth AS t JOIN requests AS r USING (request_id) WHERE t.gateway = 'gw-2' AND r.ttft_application_ms IS NOT NULL`).Scan(&n, &mean, &max); err != nil {
		t.Fatal(err)
	}
	t.Logf("nginx: ttft_application exceeds the truth's split by %.3f ms on average (at most %.3f ms) over %d requests: the gateway's time after the upstream ended, which NGINX does not log", mean.Float64, max.Float64, n)
}

func TestGroundTruthEnvoyJSONOTelJSONL(t *testing.T) {
	t.Parallel()
	fr := gcFormatRun{
		formats:  []string{"gw-1=" + simulate.FormatEnvoyJSON, "gw-2=" + simulate.FormatOTelGateway, "client=" + simulate.FormatJSONL},
		gateways: map[string]string{"gw-1": simulate.FormatEnvoyJSON, "gw-2": simulate.FormatOTelGateway},
		client:   simulate.FormatJSONL,
	}
	db := gcSimulateAndRun(t, fr)
	gcCheck(t, db, fr)
}
