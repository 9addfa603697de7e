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
// requests.parquet, or over all the parts analyze --partition wrote in
// dir/requests/, after checking that dir holds an ingest (ErrNoIngest) and
// that they were analyzed from the manifest.json beside them (ErrStale);
// parts that are incomplete, of several partitionings or beside a
// requests.parquet are refused (ErrParts). Every reader of an analyzed dir
// starts here.
func AttachRequests(ctx context.Context, db *sql.DB, dir string) error {
	_, err := attachRequests(ctx, db, dir)
	return err
}

// attachRequests is AttachRequests, returning the files of the requests.
func attachRequests(ctx context.Context, db *sql.DB, dir string) ([]string, error) {
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	paths, err := requestsFiles(ctx, db, dir, sum)
	if err != nil {
		return nil, err
	}
	if err := registerRequests(ctx, db, paths...); err != nil {
		return nil, err
	}
	if isParts(paths) {
		return paths, nil // requestsFiles checked each part
	}
	return paths, checkRequestsFrom(ctx, db, dir, paths[0], sum)
}

// isParts reports whether paths are the parts of analyze --partition
// rather than a requests.parquet.
func isParts(paths []string) bool { return len(paths) != 1 || filepath.Base(paths[0]) != RequestsFile }

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
// dir/server Parquet parts; any may be absent) with the steps of
// queries/requests/ and writes dir/requests.parquet, one row per request
// ID, recording in its metadata which manifest.json it was analyzed from.
// A dir without an ingest's manifest is an error (ErrNoIngest), and
// nothing is written there.
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
	return runTo(ctx, dir, res, w, false, filepath.Join(dir, RequestsFile), w.kvMetadata(), supersedeWhole(dir))
}

// supersedeWhole is what writing dir's requests.parquet of a whole pass or
// a window supersedes: the derived files and analyze --partition's parts.
func supersedeWhole(dir string) func() ([]string, error) {
	return func() ([]string, error) {
		removed, err := removeDerived(dir)
		if err != nil {
			return removed, err
		}
		parts, err := removeParts(dir)
		return append(removed, parts...), err
	}
}

// runTo analyzes dir for the requests that start in w (none when none:
// the tiers are read as empty) and writes them to out, with the manifest's
// SHA-256 and kv in its metadata; clear removes what the new file
// supersedes just before it is put in place.
func runTo(ctx context.Context, dir string, res duck.Resources, w Window, none bool, out, kv string, clear func() ([]string, error)) (*RunStats, error) {
	return runWith(ctx, dir, res, w, none, out, kv, clear, nil)
}

// runWith is runTo that calls prepare, when given, on the database before
// the steps run (wrote ""), then with what each step wrote once it is
// written (the facts of the other windows: facts.go).
func runWith(ctx context.Context, dir string, res duck.Resources, w Window, none bool, out, kv string,
	clear func() ([]string, error), prepare func(ctx context.Context, db *sql.DB, wrote string) error) (*RunStats, error) {
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	db, closeDB, err := openForSteps(ctx, dir, res, w, none)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if prepare != nil {
		if err := prepare(ctx, db, ""); err != nil {
			return nil, err
		}
	}
	steps, err := requestSteps()
	if err != nil {
		return nil, err
	}
	name := filepath.Base(out)
	duck.Step(ctx, "joining tiers into "+name)
	tmp := out + ".tmp"
	err = execStepsThen(ctx, db, steps, func(final string) string {
		return "COPY (\n" + w.selectRequests(final) + "\n) TO " + duck.Quote(tmp) +
			" (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + duck.Quote(sum) + kv + "})"
	}, prepare)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	removed, err := clear()
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", name, err)
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

// openForSteps opens dir's database for the steps of queries/requests/ on
// the requests that start in w: the tiers' views within WindowMargin of w
// (empty ones when none), with the rows matched by time.
func openForSteps(ctx context.Context, dir string, res duck.Resources, w Window, none bool) (*sql.DB, func(), error) {
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, nil, err
	}
	if none {
		err = registerNoTiers(ctx, db)
	} else {
		err = registerTiersIn(ctx, db, dir, w.widen(WindowMargin))
	}
	if err == nil {
		duck.Step(ctx, "matching TGI records")
		err = matchServers(ctx, db)
	}
	if err != nil {
		closeDB()
		return nil, nil, err
	}
	return db, closeDB, nil
}

// requestSteps returns the steps of queries/requests/, checked to read
// only the tier views (Tiers) and what earlier steps write.
func requestSteps() ([]queries.Step, error) {
	steps, err := queries.Steps("requests")
	if err != nil {
		return nil, err
	}
	if err := queries.CheckSteps(steps, Tiers...); err != nil {
		return nil, err
	}
	return steps, nil
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

// execSteps runs the pipeline steps (queries.Steps) on db, each step's
// table or view created by a statement of its own, and dropped once no
// later step reads it (through a view or itself), then the last step's
// query as wrap makes it (e.g. a COPY of it to a file). Run so, each step
// holds only its own hash tables and sorts, and what it leaves behind is a
// table DuckDB can spill to disk, rather than a materialized CTE that
// stays in memory until a whole query ends.
func execSteps(ctx context.Context, db *sql.DB, steps []queries.Step, wrap func(query string) string) error {
	return execStepsThen(ctx, db, steps, wrap, nil)
}

// execStepsThen is execSteps that calls then, when given, with what each
// step but the last wrote, once it is written.
func execStepsThen(ctx context.Context, db *sql.DB, steps []queries.Step, wrap func(query string) string,
	then func(ctx context.Context, db *sql.DB, wrote string) error) error {
	last := lastReads(steps)
	prof := duck.ProfilerOf(db)
	// drop drops what no step after step k reads, the latest made first
	// (a view before the tables it reads).
	drop := func(k int) error {
		for i := len(steps) - 2; i >= 0; i-- {
			st := steps[i]
			if last[st.Writes] != k {
				continue
			}
			what := "TABLE "
			if st.Kind == queries.View {
				what = "VIEW "
			}
			if _, err := db.ExecContext(ctx, "DROP "+what+st.Writes); err != nil {
				return err
			}
		}
		return nil
	}
	out := len(steps) - 1
	for k, st := range steps[:out] {
		var err error
		if st.Kind == queries.View {
			// a name for a query, inlined where it is read: no work of its own
			_, err = db.ExecContext(ctx, st.SQL)
		} else {
			duck.Step(ctx, "joining tiers: "+st.Writes)
			err = prof.Exec(ctx, db, st.Writes, st.SQL)
		}
		if err != nil {
			return fmt.Errorf("step %s: %w", st.File, err)
		}
		if then != nil {
			if err := then(ctx, db, st.Writes); err != nil {
				return err
			}
		}
		if err := drop(k); err != nil {
			return err
		}
	}
	duck.Step(ctx, "joining tiers: writing "+RequestsFile)
	// The last query reads the steps' tables in their order (a step's
	// ORDER BY) and must write its rows so.
	if _, err := db.ExecContext(ctx, "SET preserve_insertion_order = true"); err != nil {
		return err
	}
	err := prof.Exec(ctx, db, "write", wrap(steps[out].Query))
	if _, serr := db.ExecContext(ctx, "SET preserve_insertion_order = false"); err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	return drop(out)
}

// lastReads returns, for what each step but the last writes, the index of
// the last step that reads it, itself or through a view (a view's query
// reads its tables whenever a step reads the view).
func lastReads(steps []queries.Step) map[string]int {
	deps := map[string][]string{} // a view -> what its query reads
	last := map[string]int{}
	var use func(name string, k int)
	use = func(name string, k int) {
		last[name] = max(last[name], k)
		for _, d := range deps[name] {
			use(d, k)
		}
	}
	for k, st := range steps {
		if st.Kind == queries.View {
			deps[st.Writes] = st.Reads
		}
		if st.Kind != queries.Output {
			last[st.Writes] = k
		}
		for _, r := range st.Reads {
			use(r, k)
		}
	}
	return last
}
