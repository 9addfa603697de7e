package analyze

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
)

// Requests files of at most the limit, and of at most a 32nd of a memory
// limit that is set, are loaded.
func TestLoadable(t *testing.T) {
	t.Parallel()
	const mib = 1 << 20
	for _, c := range []struct {
		size, memory, limit int64
		want                bool
	}{
		{4 * mib, 0, 4 * mib, true},
		{4*mib + 1, 0, 4 * mib, false},
		{0, 0, -1, false},
		{mib, 32 * mib, 4 * mib, true},
		{mib + 1, 32 * mib, 4 * mib, false},
		{4 * mib, 1 << 30, 4 * mib, true},
	} {
		if got := loadable(c.size, duck.Resources{MemoryLimit: c.memory}, c.limit); got != c.want {
			t.Errorf("loadable(%d bytes, memory limit %d, limit %d) = %v, want %v", c.size, c.memory, c.limit, got, c.want)
		}
	}
}

// A loaded store's requests view reads the table requests_loaded, with
// every row of requests.parquet, on one DuckDB thread unless threads are
// set; a store over the limit keeps reading its file, threads unchanged.
func TestLoadRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, st, rows := runShared(t, sharedRuns[0])
	fi, err := os.Stat(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		threads int
		limit   int64
		loaded  bool
	}{
		{"small", 0, fi.Size(), true},
		{"small, threads set", 2, fi.Size(), true},
		{"over the limit", 0, fi.Size() - 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := duck.Resources{Threads: c.threads}
			db, closeDB, err := duck.Open(ctx, dir, res)
			if err != nil {
				t.Fatal(err)
			}
			defer closeDB()
			paths, err := attachRequests(ctx, db, dir)
			if err != nil {
				t.Fatal(err)
			}
			var before int
			if err := db.QueryRowContext(ctx, "SELECT current_setting('threads')").Scan(&before); err != nil {
				t.Fatal(err)
			}
			loaded, err := loadRequests(ctx, db, paths, res, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			var threads, tables, n int
			var view string
			for q, dst := range map[string]any{
				"SELECT current_setting('threads')":                                         &threads,
				"SELECT count(*) FROM duckdb_tables() WHERE table_name = 'requests_loaded'": &tables,
				"SELECT sql FROM duckdb_views() WHERE view_name = 'requests'":               &view,
				"SELECT count(DISTINCT request_id) FROM requests":                           &n,
			} {
				if err := db.QueryRowContext(ctx, q).Scan(dst); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			wantThreads, wantTables, fromTable := before, 0, false
			if c.loaded {
				wantTables, fromTable = 1, true
				if c.threads == 0 {
					wantThreads = 1
				}
			}
			if loaded != c.loaded || tables != wantTables || threads != wantThreads {
				t.Errorf("loaded %v, %d requests_loaded tables, %d threads; want %v, %d, %d", loaded, tables, threads, c.loaded, wantTables, wantThreads)
			}
			if got := strings.Contains(view, "requests_loaded"); got != fromTable {
				t.Errorf("requests view %q: reads requests_loaded %v, want %v", view, got, fromTable)
			}
			if n != len(rows) {
				t.Errorf("requests: %d request IDs, want the %d of requests.parquet", n, len(rows))
			}
		})
	}
}

// Loading the requests into memory changes no figure of a summary: the
// Result of a loaded store is that of the same store read from its files,
// with the default slices, with a contract, evals and prices, and with a
// trend by day.
func TestSummarizeLoadedSame(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tmp := t.TempDir()
	c, err := contract.Load(writeFile(t, tmp, "contract.toml", fixtureContract), SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		fixture analyzetest.Fixture
		opts    SummaryOptions
	}{
		{"standard", analyzetest.Standard(), SummaryOptions{}},
		{"contract", contractFixture(), SummaryOptions{Contract: c,
			Evals:  writeFile(t, tmp, "evals.csv", fixtureEvalsCSV),
			Prices: writeFile(t, tmp, "prices.csv", "model,input_per_mtok,output_per_mtok\nm1,1,2\nm2,3,4\n")}},
		{"trend", analyzetest.Trend(), SummaryOptions{Period: PeriodDay, By: []string{"model", "streamed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, _, _ := runFixture(t, tc.fixture, analyzetest.DefaultOffsets)
			opts := tc.opts
			opts.Resources.Threads = 1 // the same on both sides, which only loading tells apart
			read, err := summarizeLoading(ctx, dir, opts, -1)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := summarizeLoading(ctx, dir, opts, loadLimit)
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Slices) < 2 || tc.opts.Period != "" && read.Trend == nil || tc.opts.Contract != nil && read.Contract == nil {
				t.Fatalf("summary of %d slices, trend %v, contract %v: not the figures this case is for", len(read.Slices), read.Trend != nil, read.Contract != nil)
			}
			if !reflect.DeepEqual(read, loaded) {
				t.Errorf("the summary of the loaded store differs from that of its files")
			}
		})
	}
}
