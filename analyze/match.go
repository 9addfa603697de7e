package analyze

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// matchServers matches by time the records of one tier that log no request
// ID to records of the other tier that have one, and creates the server
// and gateway views queries/requests reads (the tiers as ingested are the
// server_logged and gateway_logged views).
//
//   - Server rows that log no request ID (TGI, Ollama's ollama-json) to
//     gateway records: the server view is server_logged with matched rows
//     given their gateway record's request_id (server_matched.sql). The
//     pairs are one-to-one, greedy by score: tgi_round.sql takes the
//     mutual best pairs, and Go repeats the round until it takes none.
//   - Gateway records that log no request ID (Kong's file-log before 3.5,
//     NGINX formats without $request_id) to server records whose request
//     ID no gateway record logs: the gateway view is gateway_logged with
//     matched records given their server record's request_id
//     (gateway_matched.sql). Only unambiguous pairs are taken: the gateway
//     record's only candidate, which has no other candidate either; any
//     other record stays unjoined, its gateway time in no component of
//     another request.
//
// Both use the candidates of match_candidates.sql over the match_t and
// match_g tables that the side queries fill (tgi_rows, tgi_gateways;
// noid_servers, noid_gateways).
func matchServers(ctx context.Context, db *sql.DB) error {
	if err := candidates(ctx, db, "tgi_rows", "tgi_gateways"); err != nil {
		return fmt.Errorf("match TGI rows: %w", err)
	}
	round, err := queries.Get("tgi_round")
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE tgi_match (t_key UBIGINT, request_id VARCHAR, score BIGINT, n_cand BIGINT)"); err != nil {
		return fmt.Errorf("match TGI rows: %w", err)
	}
	var pending int64
	if err := db.QueryRowContext(ctx, "SELECT count(DISTINCT t_key) FROM match_cand").Scan(&pending); err != nil {
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
	if err := view(ctx, db, "server", "server_matched"); err != nil {
		return err
	}

	if err := candidates(ctx, db, "noid_servers", "noid_gateways"); err != nil {
		return fmt.Errorf("match gateway records without a request ID: %w", err)
	}
	if _, err := db.ExecContext(ctx, `CREATE OR REPLACE TEMP TABLE gateway_time AS
		SELECT g_key, t_key AS request_id FROM match_cand
		QUALIFY count(*) OVER (PARTITION BY g_key) = 1 AND count(*) OVER (PARTITION BY t_key) = 1`); err != nil {
		return fmt.Errorf("match gateway records without a request ID: %w", err)
	}
	// Only the matches stay: the views read them.
	for _, tbl := range []string{"match_t", "match_g", "match_cand"} {
		if _, err := db.ExecContext(ctx, "DROP TABLE "+tbl); err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, "ALTER VIEW gateway RENAME TO gateway_logged"); err != nil {
		return fmt.Errorf("register gateway view: %w", err)
	}
	return view(ctx, db, "gateway", "gateway_matched")
}

// candidates fills match_t and match_g with the side queries t and g, and
// match_cand with match_candidates.sql over them.
func candidates(ctx context.Context, db *sql.DB, t, g string) error {
	for _, s := range [][2]string{{"match_t", t}, {"match_g", g}, {"match_cand", "match_candidates"}} {
		q, err := queries.Get(s[1])
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+s[0]+" AS "+duck.Strip(q)); err != nil {
			return fmt.Errorf("%s: %w", s[1], err)
		}
	}
	return nil
}

// view creates the view name from the query q.
func view(ctx context.Context, db *sql.DB, name, q string) error {
	text, err := queries.Get(q)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW "+name+" AS "+duck.Strip(text)); err != nil {
		return fmt.Errorf("register %s view: %w", name, err)
	}
	return nil
}
