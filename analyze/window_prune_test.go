package analyze

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest"
	// The formats ingest reads: native and triton here.
	_ "github.com/infertrace/infertrace/ingest/formats"
)

// pruneRequests is the number of requests of pruneStore: enough for a few
// row groups of ingest's 32,768 rows in each part of the day.
const pruneRequests = 240_000

// pruneStart is when pruneStore's first request starts; one starts every
// 100 ms after it, so the store spans 01:00 to 07:40 of one day.
var pruneStart = time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)

// pruneStore ingests a client, gateway and server log of pruneRequests
// requests in time order (native format, gateway and server a few ms after
// the client), and 50 Triton traces: server rows without a start, which
// land in the default partition. One worker writes them, so that each
// tier's day is one part whose row groups follow each other in time (with
// more, how the lines are shared among them decides which times a row
// group spans). It returns the store's directory.
func pruneStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, line func(w *bufio.Writer, i int, at time.Time)) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range pruneRequests {
			line(w, i, pruneStart.Add(time.Duration(i)*100*time.Millisecond))
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return p
	}
	ts := func(at time.Time) string { return at.Format(time.RFC3339Nano) }
	client := write("client.jsonl", func(w *bufio.Writer, i int, at time.Time) {
		fmt.Fprintf(w, `{"request_id":"r%d","start":%q,"end":%q}`+"\n", i, ts(at), ts(at.Add(2*time.Second)))
	})
	gateway := write("gateway.jsonl", func(w *bufio.Writer, i int, at time.Time) {
		at = at.Add(10 * time.Millisecond)
		fmt.Fprintf(w, `{"request_id":"r%d","start":%q,"end":%q}`+"\n", i, ts(at), ts(at.Add(2*time.Second)))
	})
	server := write("server.jsonl", func(w *bufio.Writer, i int, at time.Time) {
		at = at.Add(20 * time.Millisecond)
		fmt.Fprintf(w, `{"request_id":"r%d","arrival":%q,"scheduled":%q,"end":%q}`+"\n", i, ts(at), ts(at), ts(at.Add(2*time.Second)))
	})
	triton := filepath.Join(dir, "triton.json")
	tf, err := os.Create(triton)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(tf, "[")
	for i := range 50 {
		if i > 0 {
			fmt.Fprint(tf, ",\n")
		}
		fmt.Fprintf(tf, `{"id":%d,"model_name":"m","model_version":1,"request_id":"t%d"},`, i+1, i)
		fmt.Fprintf(tf, `{"id":%d,"timestamps":[{"name":"REQUEST_START","ns":%d},{"name":"REQUEST_END","ns":%d}]}`, i+1, 1e9*i, 1e9*i+5e8)
	}
	fmt.Fprint(tf, "]\n")
	tf.Close()

	out := filepath.Join(dir, "out")
	var inputs []ingest.Input
	for _, in := range []struct {
		tier ingest.Tier
		spec string
	}{{ingest.Client, "native:" + client}, {ingest.Gateway, "native:" + gateway}, {ingest.Server, "native:" + server}, {ingest.Server, "triton:" + triton}} {
		i, err := ingest.ParseInput(in.tier, in.spec)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, i)
	}
	m, err := ingest.Run(context.Background(), ingest.Options{Inputs: inputs, Out: out, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Failed(); len(f) > 0 {
		t.Fatalf("ingest could not read %+v", f)
	}
	return out
}

// rowGroup is one row group of a tier's part and the statistics of the
// tier's time column in it.
type rowGroup struct {
	file     string
	id       int64
	rows     int64
	min, max sql.NullTime
	nulls    int64
	// chunks are the byte ranges of its column chunks.
	chunks [][2]int64
}

// rowGroups lists the row groups of parts, with the statistics of the time
// column col.
func rowGroups(t *testing.T, db *sql.DB, parts []string, col string) []*rowGroup {
	t.Helper()
	var groups []*rowGroup
	for _, p := range parts {
		rows, err := db.Query(`SELECT row_group_id, any_value(row_group_num_rows),
    any_value(CASE WHEN path_in_schema = ? THEN stats_min_value END)::TIMESTAMP,
    any_value(CASE WHEN path_in_schema = ? THEN stats_max_value END)::TIMESTAMP,
    any_value(CASE WHEN path_in_schema = ? THEN stats_null_count END),
    list([coalesce(nullif(dictionary_page_offset, 0), data_page_offset), total_compressed_size])
FROM parquet_metadata(?) GROUP BY row_group_id ORDER BY row_group_id`, col, col, col, p)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			g := &rowGroup{file: p}
			var nulls sql.NullInt64
			var chunks []any
			if err := rows.Scan(&g.id, &g.rows, &g.min, &g.max, &nulls, &chunks); err != nil {
				t.Fatal(err)
			}
			g.nulls = nulls.Int64
			for _, c := range chunks {
				r := c.([]any)
				g.chunks = append(g.chunks, [2]int64{r[0].(int64), r[1].(int64)})
			}
			groups = append(groups, g)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return groups
}

// overlaps reports whether g's statistics admit rows in w, or rows
// without a start: the row groups a scan filtered on w must read.
func (g *rowGroup) overlaps(w Window) bool {
	if g.nulls > 0 || !g.min.Valid || !g.max.Valid {
		return true
	}
	return g.max.Time.UTC().Compare(w.From) >= 0 && g.min.Time.UTC().Before(w.To)
}

// corrupt overwrites every column chunk of g, pages and all, with bytes
// no Parquet reader can decode; the footer, and so the statistics, stay.
func (g *rowGroup) corrupt(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(g.file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range g.chunks {
		junk := make([]byte, c[1])
		for i := range junk {
			junk[i] = 0xff
		}
		if _, err := f.WriteAt(junk, c[0]); err != nil {
			t.Fatal(err)
		}
	}
}

// digest is the number of rows of a tier's view and a digest of all their
// columns.
type digest struct {
	rows int64
	hash sql.NullString
}

func (d digest) String() string { return fmt.Sprintf("%d rows, digest %s", d.rows, d.hash.String) }

func tierDigest(ctx context.Context, db *sql.DB, view string) (digest, error) {
	var d digest
	err := db.QueryRowContext(ctx, "SELECT count(*), bit_xor(hash(v))::VARCHAR FROM "+view+" v").Scan(&d.rows, &d.hash)
	return d, err
}

// TestWindowSkipsRowGroups: analyze --from/--to reads, within a day's
// partition, only the Parquet row groups whose statistics of the tier's
// time column overlap the widened window. The store's day holds several
// row groups per tier, in time order; every other row group has its pages
// overwritten with junk (its statistics kept), and the tier views of the
// window (registerTiersIn, as Run makes them) still read the same rows as
// before, equal to the window's condition applied to every row. The same
// views without the window's condition, or with DuckDB's filter pushdown
// off, fail on the junk: so the row groups are skipped by the condition on
// the time column, not by chance.
func TestWindowSkipsRowGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	out := pruneStore(t)
	// A minute at 03:00, widened as Run widens it: 02:50 to 03:11.
	w := Window{From: pruneStart.Add(2 * time.Hour), To: pruneStart.Add(2*time.Hour + time.Minute)}.widen(WindowMargin)

	db, err := openMemory1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// What the window's views must hold: its condition applied to every
	// row of the intact store.
	if err := registerTiersIn(ctx, db, out, Window{}); err != nil {
		t.Fatal(err)
	}
	views := map[string]string{"client": "client", "gateway": "gateway", "server": "server_logged"}
	want := map[string]digest{}
	for _, tier := range Tiers {
		col := tierTimeColumn[tier]
		want[tier], err = tierDigest(ctx, db, "(SELECT * FROM "+views[tier]+" WHERE "+w.cond(col)+" OR "+col+" IS NULL)")
		if err != nil {
			t.Fatal(err)
		}
	}
	// With a window, the day's parts and the default partition's are read
	// by two scans: rid stays unique across them (a window over all rows,
	// so that both scans start at a part's first row).
	rdb, err := openMemory1(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	all := Window{From: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}
	if err := registerTiersIn(ctx, rdb, out, all); err != nil {
		t.Fatal(err)
	}
	var n, ids int64
	if err := rdb.QueryRowContext(ctx, "SELECT count(*), count(DISTINCT rid) FROM server_logged").Scan(&n, &ids); err != nil {
		t.Fatal(err)
	} else if n != ids || n < 240000 {
		t.Errorf("server: %d rows but %d distinct rid", n, ids)
	}
	// 21 minutes of requests, one every 100 ms; the server has the 50
	// Triton rows without a start too.
	wantRows := map[string]int64{"client": 12600, "gateway": 12600, "server": 12650}
	for _, tier := range Tiers {
		if want[tier].rows != wantRows[tier] {
			t.Errorf("%s: the window's condition over the whole store keeps %s, want %d rows", tier, want[tier], wantRows[tier])
		}
	}

	// Junk in every row group the window need not read.
	for _, tier := range Tiers {
		parts, err := parquetParts(out, tier, w)
		if err != nil {
			t.Fatal(err)
		}
		groups := rowGroups(t, db, parts, tierTimeColumn[tier])
		var total, read, dayGroups, readGroups int64
		for _, g := range groups {
			total += g.rows
			if filepath.Base(filepath.Dir(g.file)) == "date=2026-11-30" {
				dayGroups++
			}
			if g.overlaps(w) {
				read += g.rows
				readGroups++
				continue
			}
			g.corrupt(t)
		}
		t.Logf("%s: %d of %d row groups, %d of %d rows, may hold rows of %s", tier, readGroups, len(groups), read, total, w)
		if dayGroups < 4 {
			t.Fatalf("%s: the day holds %d row groups; the test needs several", tier, dayGroups)
		}
		if read*3 > total {
			t.Fatalf("%s: %d of %d rows lie in row groups overlapping %s: too many to show that the others are skipped", tier, read, total, w)
		}
	}

	// The window's views read the same rows from the intact row groups
	// alone.
	fresh := func() *sql.DB {
		db, err := openMemory1(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db = fresh()
	if err := registerTiersIn(ctx, db, out, w); err != nil {
		t.Fatal(err)
	}
	for _, tier := range Tiers {
		got, err := tierDigest(ctx, db, views[tier])
		if err != nil {
			t.Errorf("%s: the window's view read a row group outside the window: %v", tier, err)
			continue
		}
		if got != want[tier] {
			t.Errorf("%s: the window's view holds %s, want %s", tier, got, want[tier])
		}
	}

	// Controls: the junk is read, and fails, when the condition is not
	// there or not pushed into the scan.
	db = fresh()
	if err := registerTiersIn(ctx, db, out, Window{}); err != nil {
		t.Fatal(err)
	}
	for _, tier := range Tiers {
		if got, err := tierDigest(ctx, db, views[tier]); err == nil {
			t.Errorf("%s: without the window's condition the junk row groups read without error (%s): the test cannot see a row group read", tier, got)
		}
	}
	db = fresh()
	if err := registerTiersIn(ctx, db, out, w); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "SET disabled_optimizers = 'filter_pushdown'"); err != nil {
		t.Fatal(err)
	}
	for _, tier := range Tiers {
		if got, err := tierDigest(ctx, db, views[tier]); err == nil {
			t.Errorf("%s: with the window's condition above the scan the junk row groups read without error (%s)", tier, got)
		}
	}
}
