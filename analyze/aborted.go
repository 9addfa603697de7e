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

// aborted runs pct_ci.sql over the aborted requests' wasted_ms
// (aborted_ci_*.sql) into aborted_pct, whose median aborted.sql reads.
func aborted(ctx context.Context, db *sql.DB) (Aborted, error) {
	if err := pctTable(ctx, db, "aborted", []float64{0.5}); err != nil {
		return Aborted{}, err
	}
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

// abortedFindings says how many requests were aborted and what the server
// spent on them after their clients left.
func abortedFindings(r *Result) []string {
	a := r.Aborted
	if a.Requests == 0 {
		return nil
	}
	s := fmt.Sprintf("%s aborted: the client left before the response ended (status 499, or the server went on after the tier in front of it had ended).",
		plural(a.Requests, "request was", "requests were"))
	if a.Unsplit > 0 {
		s += fmt.Sprintf(" For %s the server went on generating after the gateway had closed the connection, so network and application time are unknown (–), never negative.",
			plural(a.Unsplit, "of them", "of them"))
	}
	if a.WastedSome > 0 && a.WastedTotal != nil {
		s += fmt.Sprintf(" The server worked %s in all after the client had left (wasted_ms; P50 %s, max %s, n=%d).",
			ms(a.WastedTotal), ms(a.WastedP50), ms(a.WastedMax), a.WithWasted)
	}
	return []string{s}
}
