package analyze

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/infertrace/infertrace/queries"
)

func TestZZProfile(t *testing.T) {
	dir := os.Getenv("PROF_DIR")
	if dir == "" {
		t.Skip()
	}
	ctx := context.Background()
	db, _ := openDB(ctx)
	defer db.Close()
	if m := os.Getenv("PROF_MEM"); m != "" {
		for _, q := range []string{"SET memory_limit='" + m + "'", "SET temp_directory='/tmp/prof_spill'", "SET preserve_insertion_order=false"} {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	t0 := time.Now()
	if err := registerTiers(ctx, db, dir); err != nil {
		t.Fatal(err)
	}
	if err := matchServers(ctx, db); err != nil {
		t.Fatal(err)
	}
	t.Logf("match %v", time.Since(t0))
	db.ExecContext(ctx, "PRAGMA enable_profiling='json'")
	db.ExecContext(ctx, "PRAGMA profiling_output='/tmp/prof_requests.json'")
	q, _ := queries.Get("requests")
	t0 = time.Now()
	if _, err := db.ExecContext(ctx, "CREATE TABLE r AS "+stripSQL(q)); err != nil {
		t.Fatal(err)
	}
	t.Logf("requests %v", time.Since(t0))
}
