package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/infertrace/infertrace/queries"
)

// RequestsFile is the name of the joined per-request table Run writes.
const RequestsFile = "requests.parquet"

// Run joins the tiers ingested into dir (dir/client, dir/gateway and
// dir/server Parquet parts; any may be absent) with queries/requests.sql and
// writes dir/requests.parquet, one row per request ID.
func Run(ctx context.Context, dir string) (*RunStats, error) {
	db, err := openDB(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := registerTiers(ctx, db, dir); err != nil {
		return nil, err
	}
	if err := matchServers(ctx, db); err != nil {
		return nil, err
	}
	q, err := queries.Get("requests")
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, RequestsFile)
	tmp := out + ".tmp"
	copySQL := "COPY (\n" + stripSQL(q) + "\n) TO " + sqlString(tmp) + " (FORMAT parquet)"
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
