package analyze

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// stageQuery turns each MATERIALIZED CTE into a stage of its own, gives
// every statement only the inline CTEs it reads (directly or through
// another), and drops a stage's table after its last reader.
func TestStageQuery(t *testing.T) {
	t.Parallel()
	q := `-- a header
WITH
-- a comment between CTEs
a AS NOT MATERIALIZED (
    SELECT 1 AS x
),
b AS MATERIALIZED (
    SELECT x FROM a
),
unused AS (
    SELECT 2 AS y
),
c AS (
    SELECT x + 1 AS x FROM b
),
d AS MATERIALIZED (
    SELECT x FROM c
),
e AS MATERIALIZED (
    SELECT 3 AS z
)
SELECT * FROM d
ORDER BY x;
`
	stages, final, err := stageQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range stages {
		names = append(names, s.name)
	}
	if got := strings.Join(names, " "); got != "b d e" {
		t.Fatalf("stages %q, want \"b d e\"", got)
	}
	if want := "WITH\na AS NOT MATERIALIZED (\n    SELECT 1 AS x\n)\n    SELECT x FROM a"; stages[0].query != want {
		t.Errorf("stage b:\n%s\nwant\n%s", stages[0].query, want)
	}
	if want := "WITH\nc AS (\n    SELECT x + 1 AS x FROM b\n)\n    SELECT x FROM c"; stages[1].query != want {
		t.Errorf("stage d:\n%s\nwant\n%s", stages[1].query, want)
	}
	if want := "SELECT * FROM d\nORDER BY x"; final != want {
		t.Errorf("final:\n%s\nwant\n%s", final, want)
	}
	// b is read by d (through c), d by the final statement, e by nothing.
	for i, want := range []int{1, 3, 2} {
		if stages[i].lastUse != want {
			t.Errorf("stage %s: last read by statement %d, want %d", stages[i].name, stages[i].lastUse, want)
		}
	}
	for _, bad := range []string{
		"SELECT 1",
		"WITH\na AS (\n    SELECT 1\n",
		"WITH\na AS (\n    SELECT 1\n)\n",
	} {
		if _, _, err := stageQuery(bad); err == nil {
			t.Errorf("stageQuery(%q): no error", bad)
		}
	}
}

// requests.sql run in stages, as Run runs it, gives the rows it gives as
// one statement (as the ground-truth tests run it), on a fixture with an
// exact duplicate, a retry, rows sharing one source line and ID-less rows.
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
	q := queries.MustGet("requests")
	if _, err := db.Exec("CREATE TABLE one AS " + duck.Strip(q)); err != nil {
		t.Fatal(err)
	}
	if err := execStaged(ctx, db, q, func(final string) string { return "CREATE TABLE staged AS " + final }); err != nil {
		t.Fatal(err)
	}
	var n, differ int64
	err := db.QueryRow(`SELECT (SELECT count(*) FROM staged),
	    (SELECT count(*) FROM (SELECT * FROM one EXCEPT ALL SELECT * FROM staged))
	  + (SELECT count(*) FROM (SELECT * FROM staged EXCEPT ALL SELECT * FROM one))`).Scan(&n, &differ)
	if err != nil {
		t.Fatal(err)
	}
	if n < 11 || differ != 0 {
		t.Errorf("staged: %d rows, %d differ from the one statement's", n, differ)
	}
	// The stages' tables are gone.
	var left int64
	if err := db.QueryRow("SELECT count(*) FROM duckdb_tables() WHERE temporary").Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 2 { // tgi_match and gateway_time, matchServers's own
		t.Errorf("%d temporary tables left, want 2 (matchServers's)", left)
	}
}

// fixtureDB writes f to a temporary directory and opens it as analyze does
// before requests.sql: the tier views registered and TGI rows matched.
func fixtureDB(t *testing.T, f analyzetest.Fixture) *sql.DB {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	db, done, err := duck.Open(ctx, dir, duck.Resources{})
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
