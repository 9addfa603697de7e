// Command duckdbcopy is the baseline infertrace's ingest is measured
// against: what an expert would do without infertrace, DuckDB's own
// COPY (SELECT … FROM read_json(…)) TO '….parquet' with
// preserve_insertion_order off, for each tier's native JSON lines.
//
//	go run ./bench/duckdbcopy -out DIR -client 'GLOB' -gateway 'GLOB' -server 'GLOB'
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

var columns = map[string]string{
	"client": `{request_id: 'VARCHAR', start: 'VARCHAR', first_token: 'VARCHAR', "end": 'VARCHAR', status: 'INTEGER',
		error: 'VARCHAR', streamed: 'BOOLEAN', model: 'VARCHAR', use_case: 'VARCHAR', client: 'VARCHAR', region: 'VARCHAR',
		prompt_tokens: 'INTEGER', output_tokens: 'INTEGER'}`,
	"gateway": `{request_id: 'VARCHAR', start: 'VARCHAR', "end": 'VARCHAR', upstream_start: 'VARCHAR', upstream_end: 'VARCHAR',
		status: 'INTEGER', route: 'VARCHAR', upstream: 'VARCHAR', gateway: 'VARCHAR'}`,
	"server": `{request_id: 'VARCHAR', arrival: 'VARCHAR', scheduled: 'VARCHAR', first_token: 'VARCHAR', "end": 'VARCHAR',
		model: 'VARCHAR', replica: 'VARCHAR', prompt_tokens: 'INTEGER', output_tokens: 'INTEGER', finish_reason: 'VARCHAR',
		status: 'INTEGER'}`,
}

// Times are RFC 3339 strings (with a zone) or epoch seconds; both become
// TIMESTAMPTZ, DuckDB's fastest correct reading of either.
func ts(col string) string {
	return fmt.Sprintf(`coalesce(try_cast(%[1]s AS TIMESTAMPTZ),
		make_timestamp(try_cast(try_cast(%[1]s AS DOUBLE) * 1e6 AS BIGINT))::TIMESTAMPTZ) AS %[2]s`,
		col, strings.Trim(col, `"`)+"_time")
}

var selects = map[string]string{
	"client": `request_id, ` + ts("start") + `, ` + ts("first_token") + `, ` + ts(`"end"`) +
		`, status, error, streamed, model, use_case, client, region, prompt_tokens, output_tokens`,
	"gateway": `request_id, ` + ts("start") + `, ` + ts(`"end"`) + `, ` + ts("upstream_start") + `, ` + ts("upstream_end") +
		`, status, route, upstream, gateway`,
	"server": `request_id, ` + ts("arrival") + `, ` + ts("scheduled") + `, ` + ts("first_token") + `, ` + ts(`"end"`) +
		`, model, replica, prompt_tokens, output_tokens, finish_reason, status`,
}

func main() {
	out := flag.String("out", "", "output directory")
	globs := map[string]*string{}
	for _, t := range []string{"client", "gateway", "server"} {
		globs[t] = flag.String(t, "", t+" JSON-lines glob")
	}
	flag.Parse()
	if err := run(*out, globs); err != nil {
		fmt.Fprintln(os.Stderr, "duckdbcopy:", err)
		os.Exit(1)
	}
}

func run(out string, globs map[string]*string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec(`SET preserve_insertion_order = false`); err != nil {
		return err
	}
	for _, t := range []string{"client", "gateway", "server"} {
		if *globs[t] == "" {
			continue
		}
		start := time.Now()
		q := fmt.Sprintf(`COPY (SELECT %s FROM read_json(%s, format = 'newline_delimited', columns = %s, ignore_errors = true))
			TO %s (FORMAT parquet)`, selects[t], quote(*globs[t]), columns[t], quote(filepath.Join(out, t+".parquet")))
		var n int64
		if err := db.QueryRow(q).Scan(&n); err != nil {
			return fmt.Errorf("%s: %w", t, err)
		}
		fmt.Printf("%s: %d rows in %.2fs\n", t, n, time.Since(start).Seconds())
	}
	return nil
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
