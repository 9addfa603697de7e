package analyze

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// requestsQuery returns the steps of queries/requests/ as one statement
// (queries.OneStatement).
func requestsQuery(t *testing.T) string {
	t.Helper()
	steps, err := requestSteps()
	if err != nil {
		t.Fatal(err)
	}
	return queries.OneStatement(steps)
}

// lastReads: a table is dropped after the last step that reads it, itself
// or through a view (and a view's own reads through another view).
func TestLastReads(t *testing.T) {
	t.Parallel()
	steps := []queries.Step{
		{Writes: "a", Reads: []string{"client"}, Kind: queries.Table},
		{Writes: "b", Reads: []string{"a"}, Kind: queries.Table},
		{Writes: "v", Reads: []string{"a"}, Kind: queries.View},
		{Writes: "w", Reads: []string{"v", "b"}, Kind: queries.View},
		{Writes: "c", Reads: []string{"b"}, Kind: queries.Table},
		{Writes: "d", Reads: []string{"w"}, Kind: queries.Table},
		{Writes: "out.parquet", Reads: []string{"c", "d"}, Kind: queries.Output},
	}
	got := lastReads(steps)
	for name, want := range map[string]int{"a": 5, "b": 5, "v": 5, "w": 5, "c": 6, "d": 6} {
		if got[name] != want {
			t.Errorf("%s: last read by step %d, want %d", name, got[name], want)
		}
	}
	if _, ok := got["out.parquet"]; ok {
		t.Error("the output is no table to drop")
	}
}

// The steps of queries/requests/ run one by one, as Run runs them, give
// the rows they give as one statement (queries.OneStatement, as the
// ground-truth tests run them), on a fixture with an exact duplicate, a
// retry, rows sharing one source line and ID-less rows; and each table
// and view is gone once the write is done.
func TestStagedRequestsEqualOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := analyzetest.Standard()
	f.Clients = append(f.Clients,
		analyzetest.Client{Start: analyzetest.At(600), End: analyzetest.At(900), File: "logs/bench.json", Line: 1},
		analyzetest.Client{Start: analyzetest.At(700), End: analyzetest.At(800), File: "logs/bench.json", Line: 1},
		analyzetest.Client{Start: analyzetest.At(700), End: analyzetest.At(800), File: "logs/bench.json", Line: 2})
	f.Gateways = append(f.Gateways, analyzetest.Gateway{Start: analyzetest.At(10), End: analyzetest.At(990), Line: 70})
	db := fixtureDB(t, f)
	if _, err := db.Exec("CREATE TABLE one AS " + requestsQuery(t)); err != nil {
		t.Fatal(err)
	}
	steps, err := requestSteps()
	if err != nil {
		t.Fatal(err)
	}
	if err := execSteps(ctx, db, steps, func(final string) string { return "CREATE TABLE staged AS " + final }); err != nil {
		t.Fatal(err)
	}
	var n, differ int64
	err = db.QueryRow(`SELECT (SELECT count(*) FROM staged),
	    (SELECT count(*) FROM (SELECT * FROM one EXCEPT ALL SELECT * FROM staged))
	  + (SELECT count(*) FROM (SELECT * FROM staged EXCEPT ALL SELECT * FROM one))`).Scan(&n, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if n < 11 || differ != 0 {
		t.Errorf("staged: %d rows, %d differ from the one statement's", n, differ)
	}
	// The steps' tables and views are gone.
	var left, views int64
	if err := db.QueryRow("SELECT count(*) FROM duckdb_tables() WHERE temporary").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 2 { // tgi_match and gateway_time, matchServers's own
		t.Errorf("%d temporary tables left, want 2 (matchServers's)", left)
	}
	if err := db.QueryRow("SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal").Scan(&views); err != nil {
		t.Fatal(err)
	}
	if views != 0 {
		t.Errorf("%d of the steps' views left, want none", views)
	}
}

// fixtureDB writes f to a temporary directory and opens it as analyze does
// before the requests steps: the tier views registered and TGI rows matched.
func fixtureDB(t *testing.T, f analyzetest.Fixture) *sql.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	db, done, err := duck.Open(ctx, dir, duck.Resources{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(done)
	if err := registerTiers(ctx, db, dir); err != nil {
		t.Fatal(err)
	}
	if err := matchServers(ctx, db); err != nil {
		t.Fatal(err)
	}
	return db
}

// Each step of queries/requests/ declares exactly what it reads: the
// tables and views its statement names, as DuckDB's parser finds them
// (json_serialize_sql), among the tier views and what the steps write.
// And the steps check as a pipeline over the tier views (CheckSteps, as
// Run checks them): each reads only what is there by then.
func TestRequestStepsDeclareTheirReads(t *testing.T) {
	t.Parallel()
	steps, err := requestSteps()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "?threads=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	known := map[string]bool{}
	for _, tier := range Tiers {
		known[tier] = true
	}
	for _, st := range steps {
		known[st.Writes] = true
	}
	for _, st := range steps {
		var js string
		if err := db.QueryRow("SELECT json_serialize_sql(?::VARCHAR)::VARCHAR", st.Query).Scan(&js); err != nil {
			t.Fatal(st.File, err)
		}
		var tree any
		if err := json.Unmarshal([]byte(js), &tree); err != nil {
			t.Fatal(st.File, err)
		}
		if m, ok := tree.(map[string]any); !ok || m["error"] == true {
			t.Fatalf("%s: DuckDB does not parse its query: %.300s", st.File, js)
		}
		named := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if v["type"] == "BASE_TABLE" {
					if n, _ := v["table_name"].(string); known[n] {
						named[n] = true
					}
				}
				for _, c := range v {
					walk(c)
				}
			case []any:
				for _, c := range v {
					walk(c)
				}
			}
		}
		walk(tree)
		var got []string
		for n := range named {
			got = append(got, n)
		}
		sort.Strings(got)
		want := append([]string(nil), st.Reads...)
		sort.Strings(want)
		if strings.Join(got, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s: reads %s, but its header declares %s", st.File, strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
}
