// Command expert runs expert.sql, the anchor bench/analyze.sh measures
// infertrace's logs-to-report time against: what an expert writes with
// DuckDB alone in an afternoon, from the raw logs of the three tiers to
// per-model × use-case percentiles of client E2E, TTFT and each component.
//
//	go run ./bench/expert -client 'GLOB' -gateway 'GLOB' -server 'GLOB' -out requests.parquet
//
// The script's statements run in order on one in-memory DuckDB with its
// default settings (all cores, 80% of RAM); the last one's rows are printed.
package main

import (
	"context"
	"database/sql"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

//go:embed expert.sql
var script string

func main() {
	client := flag.String("client", "", "glob of the client's JSON lines")
	gateway := flag.String("gateway", "", "glob of the gateway's JSON lines")
	server := flag.String("server", "", "glob of the server's JSON lines")
	out := flag.String("out", "", "the Parquet file of one row per request")
	flag.Parse()
	if *client == "" || *gateway == "" || *server == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: expert -client GLOB -gateway GLOB -server GLOB -out FILE")
		os.Exit(2)
	}
	if err := run(context.Background(), statements(script, map[string]string{
		"client": *client, "gateway": *gateway, "server": *server, "out": *out,
	})); err != nil {
		fmt.Fprintln(os.Stderr, "expert:", err)
		os.Exit(1)
	}
}

// statements cuts the script at each ";" that ends a line and puts each
// {{name}} of vars in as an SQL string.
func statements(sqlText string, vars map[string]string) []string {
	for k, v := range vars {
		sqlText = strings.ReplaceAll(sqlText, "{{"+k+"}}", "'"+strings.ReplaceAll(v, "'", "''")+"'")
	}
	var out []string
	for _, s := range strings.Split(sqlText, ";\n") {
		if strings.TrimSpace(stripComments(s)) != "" {
			out = append(out, s)
		}
	}
	return out
}

func stripComments(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func run(ctx context.Context, stmts []string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	last := len(stmts) - 1
	for _, s := range stmts[:last] {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("%w\nin:\n%s", err, s)
		}
	}
	rows, err := db.QueryContext(ctx, stmts[last])
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	fmt.Println(strings.Join(cols, "\t"))
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = fmt.Sprint(v)
		}
		fmt.Println(strings.Join(cells, "\t"))
	}
	if err := rows.Err(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%.2fs\n", time.Since(start).Seconds())
	return nil
}
