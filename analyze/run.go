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
	err := db.QueryRowContext(ctx, "SELECT decode(value) FROM parquet_kv_metadata("+sqlString(path)+
		") WHERE decode(key) = "+sqlString(manifestKey)).Scan(&got)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("requests table: %w", err)
	}
	if got != sum {
		return fmt.Errorf("%s is %w: it was not analyzed from the manifest.json beside it (an ingest into %s ran since): run infertrace analyze %s again",
			path, ErrStale, dir, dir)
	}
	return nil
}

// Run joins the tiers ingested into dir (dir/client, dir/gateway and
// dir/server Parquet parts; any may be absent) with queries/requests.sql and
// writes dir/requests.parquet, one row per request ID, recording in its
// metadata which manifest.json it was analyzed from. A dir without an
// ingest's manifest is an error (ErrNoIngest), and nothing is written there.
func Run(ctx context.Context, dir string) (*RunStats, error) {
	return RunWith(ctx, dir, Resources{})
}

// RunWith is Run within the memory limit and threads of res.
func RunWith(ctx context.Context, dir string, res Resources) (*RunStats, error) {
	return RunWindow(ctx, dir, res, Window{})
}

// RunWindow is RunWith for the requests that start in w (see Window): it
// reads the tiers within WindowMargin of w and records w in
// requests.parquet's metadata, which Summarize checks.
func RunWindow(ctx context.Context, dir string, res Resources, w Window) (*RunStats, error) {
	if err := w.Check(); err != nil {
		return nil, err
	}
	sum, err := manifestSum(dir)
	if err != nil {
		return nil, err
	}
	db, closeDB, err := openIn(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := registerTiersIn(ctx, db, dir, w.widen(WindowMargin)); err != nil {
		return nil, err
	}
	step(ctx, "matching TGI records")
	if err := matchServers(ctx, db); err != nil {
		return nil, err
	}
	q, err := queries.Get("requests")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, RequestsFile)
	tmp := out + ".tmp"
	copySQL := "COPY (\n" + w.selectRequests(stripSQL(q)) + "\n) TO " + sqlString(tmp) +
		" (FORMAT parquet, KV_METADATA {" + manifestKey + ": " + sqlString(sum) + w.kvMetadata() + "})"
	step(ctx, "joining tiers into "+RequestsFile)
	if _, err := db.ExecContext(ctx, copySQL); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", RequestsFile, err)
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
	return &RunStats{Path: out, Coverage: cov, Anomalous: anomalous, Retried: retried}, nil
}

// coverage runs queries/coverage.sql over the requests view.
func coverage(ctx context.Context, db *sql.DB) (cov Coverage, anomalous, retried int64, err error) {
	rows, err := queryRows(ctx, db, "coverage")
	if err != nil {
		return cov, 0, 0, err
	}
	if len(rows) != 1 {
		return cov, 0, 0, fmt.Errorf("coverage: got %d rows, want 1", len(rows))
	}
	r := rows[0]
	cov = Coverage{
		Requests:      asInt(r["requests"]),
		Client:        asInt(r["client"]),
		Gateway:       asInt(r["gateway"]),
		Server:        asInt(r["server"]),
		ClientGateway: asInt(r["client_gateway"]),
		GatewayServer: asInt(r["gateway_server"]),
		ClientServer:  asInt(r["client_server"]),
		AllTiers:      asInt(r["all_tiers"]),
	}
	return cov, asInt(r["anomalous"]), asInt(r["retried"]), nil
}
