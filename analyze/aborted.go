package analyze

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/infertrace/infertrace/internal/duck"
)

// Aborted sums up the requests whose client left before the response
// ended (requests.parquet's aborted column) and the server's work on them
// after their client left (wasted_ms).
type Aborted struct {
	Requests int64
	// WithWasted have a wasted_ms; WastedSome a positive one.
	WithWasted, WastedSome int64
	// WastedTotal, WastedP50 and WastedMax are over WithWasted (nil when 0).
	WastedTotal, WastedP50, WastedMax *float64
	// Unsplit have gateway and server records but no network or
	// application time: the server ran on after the gateway had ended.
	Unsplit int64
}

// aborted runs aborted.sql, which reads the median of the aborted
// requests' wasted_ms from aborted_pct (reportPercentiles, over
// aborted_ci_*.sql).
func aborted(ctx context.Context, db *sql.DB) (Aborted, error) {
	rows, err := duck.Rows(ctx, db, "aborted")
	if err != nil {
		return Aborted{}, err
	}
	if len(rows) != 1 {
		return Aborted{}, fmt.Errorf("aborted: got %d rows, want 1", len(rows))
	}
	r := rows[0]
	return Aborted{Requests: duck.Int(r["n_aborted"]), WithWasted: duck.Int(r["with_wasted"]), WastedSome: duck.Int(r["wasted_some"]),
		WastedTotal: duck.Float(r["wasted_ms_total"]), WastedP50: duck.Float(r["wasted_ms_p50"]), WastedMax: duck.Float(r["wasted_ms_max"]),
		Unsplit: duck.Int(r["unsplit"])}, nil
}
