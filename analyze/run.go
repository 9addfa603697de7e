package analyze

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// RequestsFile is the name of the joined per-request table Run writes.
const RequestsFile = "requests.parquet"

// ErrNoIngest is wrapped by the error of Run, Summarize and CheckIngested
// for a directory that holds no ingest output.
var ErrNoIngest = errors.New("holds no ingest output")

// ErrStale is wrapped by the error of Summarize when requests.parquet was
// not analyzed from the manifest.json beside it (an ingest ran since).
var ErrStale = errors.New("stale")

// manifestKey is the key of requests.parquet's key-value metadata that holds
// the SHA-256 of the manifest.json it was analyzed from.
const manifestKey = "infertrace_manifest_sha256"

// CheckIngested returns an error wrapping ErrNoIngest unless dir holds an
// ingest's output. Ingest writes manifest.json last, after removing the
// previous one first, so a manifest means a complete ingest.
func CheckIngested(dir string) error {
	_, err := manifestSum(dir)
	return err
}

// manifestSum returns the SHA-256 of dir/manifest.json, in hex.
func manifestSum(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		if st, serr := os.Stat(dir); serr != nil {
			return "", fmt.Errorf("%s %w: no such directory", dir, ErrNoIngest)
		} else if !st.IsDir() {
			return "", fmt.Errorf("%s %w: it is a file, not a directory", dir, ErrNoIngest)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s %w (no manifest.json: no ingest into it finished): run infertrace ingest --out %s first", dir, ErrNoIngest, dir)
	}
	if err != nil {
		return "", fmt.Errorf("manifest: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// checkRequestsFrom fails with ErrStale unless the requests.parquet at path
// was analyzed from the manifest whose SHA-256 is sum.
func checkRequestsFrom(ctx context.Context, db *sql.DB, dir, path, sum string) error {
	var got string
	err := db.QueryRowContext(ctx, "SELECT decode(value) FROM parquet_kv_metadata("+duck.Quote(path)+
		") WHERE decode(key) = "+duck.Quote(manifestKey)).Scan(&got)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("requests table: %w", err)
	}
	if got != sum {
		return fmt.Errorf("%s is %w: it was not analyzed from the manifest.json beside it (an ingest into %s ran since): run infertrace analyze %s again",
			path, ErrStale, dir, dir)
	}
	return nil
}

// AttachRequests registers on db the view requests over dir's
// requests.parquet, after checking that dir holds an ingest (ErrNoIngest)
// and that requests.parquet was analyzed from the manifest.json beside it
// (ErrStale). Every reader of an analyzed dir starts here.
func AttachRequests(ctx context.Context, db *sql.DB, dir string) error {
	sum, err := manifestSum(dir)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, RequestsFile)
	if err := registerRequests(ctx, db, path); err != nil {
		return err
	}
	return checkRequestsFrom(ctx, db, dir, path, sum)
}

// OpenAnalyzed opens a DuckDB bounded by res on the analyzed dir, with the
// views requests (AttachRequests) and client, gateway and server (the
// ingested tiers) registered. The returned function closes it.
func OpenAnalyzed(ctx context.Context, dir string, res duck.Resources) (*sql.DB, func(), error) {
	if _, err := manifestSum(dir); err != nil {
		return nil, nil, err
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, nil, err
	}
	if err := AttachRequests(ctx, db, dir); err != nil {
		closeDB()
		return nil, nil, err
	}
	if err := registerTiers(ctx, db, dir); err != nil {
		closeDB()
		return nil, nil, err
	}
	return db, closeDB, nil
}

// Run joins the tiers ingested into dir (dir/client, dir/gateway and
// dir/server Parquet parts; any may be absent) with queries/requests.sql and
// writes dir/requests.parquet, one row per request ID, recording in its
// metadata which manifest.json it was analyzed from. A dir without an
// ingest's manifest is an error (ErrNoIngest), and nothing is written there.
func Run(ctx context.Context, dir string) (*RunStats, error) {
	return RunWith(ctx, dir, duck.Resources{})
}

// RunWith is Run within the memory limit and threads of res.
func RunWith(ctx context.Context, dir string, res duck.Resources) (*RunStats, error) {
	return RunWindow(ctx, dir, res, Window{})
}

// RunWindow is RunWith for the requests that start in w (see Window): it
// reads the tiers within WindowMargin of w and records w in
// requests.parquet's metadata, which Summarize checks.
func RunWindow(ctx context.Context, dir string, res duck.Resources, w Window) (*RunStats, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := registerTiersIn(ctx, db, dir, w.widen(WindowMargin)); err != nil {
		return nil, err
	}
	duck.Step(ctx, "matching TGI records")
	if err := matchServers(ctx, db); err != nil {
		return nil, err
	}
	q, err := queries.Get("requests")
	if err != nil {
		return nil, err
	}
	duck.Step(ctx, "joining tiers into "+RequestsFile)
	out := filepath.Join(dir, RequestsFile)
	tmp := out + ".tmp"
	err = execStaged(ctx, db, q, func(final string) string {
		return "COPY (\n" + w.selectRequests(final) + "\n) TO " + duck.Quote(tmp) +
			" (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + duck.Quote(sum) + w.kvMetadata() + "})"
	})
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", RequestsFile, err)
	}
	removed, err := removeDerived(dir)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", RequestsFile, err)
	}
	if err := registerRequests(ctx, db, out); err != nil {
		return nil, err
	}
	cov, anomalous, retried, err := coverage(ctx, db)
	if err != nil {
		return nil, err
	}
	return &RunStats{Path: out, Coverage: cov, Anomalous: anomalous, Retried: retried, Removed: removed}, nil
}

// Derived are the files made from DIR/requests.parquet into DIR: the
// report's, and those of compare, explain and whatif when their --out is
// DIR. RunWindow removes them just before it puts a new requests.parquet
// in place, so that none is left beside requests it was not made from (a
// report of 19999 requests beside the 711 of an analyze --from --to).
var Derived = []string{"report.md", "report.html", "report.json", "slices.csv", "compare.md", "compare.html", "compare.json",
	"explain.md", "explain.html", "explain.json", "whatif.md", "whatif.html", "whatif.json"}

// removeDerived removes dir's Derived files (and their .tmp) and returns
// the paths of those that were there.
func removeDerived(dir string) ([]string, error) {
	var removed []string
	for _, name := range Derived {
		for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, name+".tmp")} {
			err := os.Remove(p)
			switch {
			case err == nil:
				if !strings.HasSuffix(p, ".tmp") {
					removed = append(removed, p)
				}
			case !errors.Is(err, fs.ErrNotExist):
				return removed, fmt.Errorf("remove %s, made from the previous %s: %w", p, RequestsFile, err)
			}
		}
	}
	return removed, nil
}

// coverage runs queries/coverage.sql over the requests view.
func coverage(ctx context.Context, db *sql.DB) (cov Coverage, anomalous, retried int64, err error) {
	rows, err := duck.Rows(ctx, db, "coverage")
	if err != nil {
		return cov, 0, 0, err
	}
	if len(rows) != 1 {
		return cov, 0, 0, fmt.Errorf("coverage: got %d rows, want 1", len(rows))
	}
	r := rows[0]
	cov = Coverage{
		Requests:      duck.Int(r["requests"]),
		Client:        duck.Int(r["client"]),
		Gateway:       duck.Int(r["gateway"]),
		Server:        duck.Int(r["server"]),
		ClientGateway: duck.Int(r["client_gateway"]),
		GatewayServer: duck.Int(r["gateway_server"]),
		ClientServer:  duck.Int(r["client_server"]),
		AllTiers:      duck.Int(r["all_tiers"]),
	}
	return cov, duck.Int(r["anomalous"]), duck.Int(r["retried"]), nil
}

// execStaged runs q as stageQuery splits it: each stage into its temporary
// table, dropped once no later statement reads it, then the final statement
// as wrap makes it (e.g. a COPY of it to a file).
func execStaged(ctx context.Context, db *sql.DB, q string, wrap func(final string) string) error {
	stages, final, err := stageQuery(q)
	if err != nil {
		return err
	}
	prof := duck.ProfilerOf(db)
	// drop drops the tables of the stages that no statement after k reads.
	drop := func(k int) error {
		for _, st := range stages {
			if st.lastUse == k {
				if _, err := db.ExecContext(ctx, "DROP TABLE "+st.name); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for k, st := range stages {
		duck.Step(ctx, "joining tiers: "+st.name)
		if err := prof.Exec(ctx, db, st.name, "CREATE OR REPLACE TEMP TABLE "+st.name+" AS "+st.query); err != nil {
			return fmt.Errorf("step %s: %w", st.name, err)
		}
		if err := drop(k); err != nil {
			return err
		}
	}
	duck.Step(ctx, "joining tiers: writing "+RequestsFile)
	// The final statement reads the stages' tables in their order (a
	// stage's ORDER BY) and must write its rows so.
	if _, err := db.ExecContext(ctx, "SET preserve_insertion_order = true"); err != nil {
		return err
	}
	err = prof.Exec(ctx, db, "write", wrap(final))
	if _, serr := db.ExecContext(ctx, "SET preserve_insertion_order = false"); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	return drop(len(stages))
}

// A stage is one MATERIALIZED CTE of a query, run on its own into a
// temporary table of the CTE's name.
type stage struct {
	name  string
	query string
	// lastUse is the index of the last stage that reads the table, or
	// len(stages) when the final statement does.
	lastUse int
}

// stageQuery splits q, a query laid out as requests.sql is (comments, a
// line "WITH", then CTEs that each begin with a line "name AS (", "name AS
// MATERIALIZED (" or "name AS NOT MATERIALIZED (" and end with a line ")" or
// "),", then the final statement), into one stage per MATERIALIZED CTE, in
// order, and the final statement with the other CTEs. Each stage and the
// final statement bring with them the CTEs that are not materialized, and
// read the earlier stages' tables by the CTE's name, so they compute what
// q computes. Run so, each step holds only its own operators' memory, and
// what it leaves behind is a table DuckDB can spill to disk, rather than a
// materialized CTE that stays in memory until the whole query ends.
func stageQuery(q string) (stages []stage, final string, err error) {
	lines := strings.Split(duck.Strip(q), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) != "WITH" {
		i++
	}
	if i == len(lines) {
		return nil, "", errors.New("no line WITH")
	}
	var inline []cte // the CTEs that are not materialized, in order
	// with prefixes body with the inline CTEs it needs.
	with := func(body string) string {
		need := map[string]bool{}
		for _, n := range sqlNames.FindAllString(body, -1) {
			need[n] = true
		}
		for k := len(inline) - 1; k >= 0; k-- {
			if need[inline[k].name] {
				for _, n := range sqlNames.FindAllString(inline[k].body, -1) {
					need[n] = true
				}
			}
		}
		var parts []string
		for _, c := range inline {
			if need[c.name] {
				parts = append(parts, c.name+" AS "+c.how+"(\n"+c.body+"\n)")
			}
		}
		if len(parts) == 0 {
			return body
		}
		return "WITH\n" + strings.Join(parts, ",\n") + "\n" + body
	}
	for i++; i < len(lines); {
		l := lines[i]
		if l == "" || strings.HasPrefix(l, "--") {
			i++
			continue
		}
		m := cteStart.FindStringSubmatch(l)
		if m == nil {
			break // the final statement
		}
		start := i
		for i < len(lines) && lines[i] != ")" && lines[i] != ")," {
			i++
		}
		if i == len(lines) {
			return nil, "", fmt.Errorf("CTE %s: no line ) or ), ends it", m[1])
		}
		body := strings.Join(lines[start+1:i], "\n")
		i++
		if m[2] == "MATERIALIZED " {
			stages = append(stages, stage{name: m[1], query: with(body)})
		} else {
			inline = append(inline, cte{name: m[1], how: m[2], body: body})
		}
	}
	if i == len(lines) {
		return nil, "", errors.New("no statement after the CTEs")
	}
	final = with(strings.Join(lines[i:], "\n"))
	// Each stage's table is dropped after the last statement that reads it.
	last := map[string]int{}
	for k, st := range append(stages, stage{query: final}) {
		for _, n := range sqlNames.FindAllString(st.query, -1) {
			last[n] = k
		}
	}
	for k := range stages {
		stages[k].lastUse = max(last[stages[k].name], k)
	}
	return stages, final, nil
}

// A cte is one CTE of a query: name AS how (body).
type cte struct {
	name, how, body string
}

// sqlNames matches the words of a query that may name a CTE.
var sqlNames = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// cteStart matches the first line of a CTE in stageQuery's layout.
var cteStart = regexp.MustCompile(`^([a-z_][a-z0-9_]*) AS ((?:NOT )?MATERIALIZED )?\($`)
