package analyze

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// matchServers matches server rows that log no request ID (TGI, Ollama's
// ollama-json) to gateway records by time and creates the server view
// requests.sql reads: the server_logged view with matched rows given their
// gateway record's request_id. The candidates (tgi_candidates.sql) and each round of the
// one-to-one greedy matching (tgi_round.sql) are SQL; Go only repeats the
// round until it takes no pair.
func matchServers(ctx context.Context, db *sql.DB) error {
	cand, err := queries.Get("tgi_candidates")
	if err != nil {
		return err
	}
	round, err := queries.Get("tgi_round")
	if err != nil {
		return err
	}
	view, err := queries.Get("server_matched")
	if err != nil {
		return err
	}
	for _, q := range []string{
		"CREATE OR REPLACE TEMP TABLE tgi_cand AS " + duck.Strip(cand),
		"CREATE OR REPLACE TEMP TABLE tgi_match (t_key UBIGINT, request_id VARCHAR, score BIGINT, n_cand BIGINT)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("match TGI rows: %w", err)
		}
	}
	var pending int64
	if err := db.QueryRowContext(ctx, "SELECT count(DISTINCT t_key) FROM tgi_cand").Scan(&pending); err != nil {
		return fmt.Errorf("match TGI rows: %w", err)
	}
	// Every round takes at least one pair while candidates remain, so at
	// most pending rounds are needed.
	for i := int64(0); i < pending; i++ {
		res, err := db.ExecContext(ctx, duck.Strip(round))
		if err != nil {
			return fmt.Errorf("match TGI rows: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			break
		}
	}
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW server AS "+duck.Strip(view)); err != nil {
		return fmt.Errorf("register server view: %w", err)
	}
	return nil
}
