package ingest

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/queries"
)

// TestWireSchema: the row types (read by tests and documented in
// record.go) and the wire types that are written have the same columns with
// the same tags, in the same order.
func TestWireSchema(t *testing.T) {
	for _, c := range []struct{ row, wire reflect.Type }{
		{reflect.TypeFor[ClientRow](), reflect.TypeFor[clientWire]()},
		{reflect.TypeFor[GatewayRow](), reflect.TypeFor[gatewayWire]()},
		{reflect.TypeFor[ServerRow](), reflect.TypeFor[serverWire]()},
	} {
		if c.row.NumField() != c.wire.NumField() {
			t.Errorf("%s has %d fields, %s %d", c.row, c.row.NumField(), c.wire, c.wire.NumField())
			continue
		}
		for i := range c.row.NumField() {
			r, w := c.row.Field(i), c.wire.Field(i)
			if r.Name != w.Name || r.Tag != w.Tag {
				t.Errorf("%s field %d: %s `%s`, but %s has %s `%s`", c.row, i, r.Name, r.Tag, c.wire, w.Name, w.Tag)
			}
			if strings.Contains(r.Tag.Get("parquet"), "optional") != (w.Type.Kind() == reflect.Pointer) {
				t.Errorf("%s.%s: optional columns are pointers on the wire, required ones values", c.wire, w.Name)
			}
		}
	}
}

// TestNullRoundTrip writes rows through the real sink and reads them back
// with DuckDB: every nullable column of every tier is NULL exactly where the
// row left it empty, and holds its value elsewhere. The patterns put a lone
// value at every offset of a 64-row block (block b holds one value, at
// offset b), then random patterns of several densities, so a writer that
// treats a block of 64 rows as one run is caught.
func TestNullRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t.Run("client", func(t *testing.T) { nullRoundTrip[ClientRow](t, db, dir, Client) })
	t.Run("gateway", func(t *testing.T) { nullRoundTrip[GatewayRow](t, db, dir, Gateway) })
	t.Run("server", func(t *testing.T) { nullRoundTrip[ServerRow](t, db, dir, Server) })
}

func nullRoundTrip[T Row](t *testing.T, db *sql.DB, dir string, tier Tier) {
	typ := reflect.TypeFor[T]()
	type column struct {
		field int
		name  string
	}
	var cols []column
	for i := range typ.NumField() {
		name, opts, _ := strings.Cut(typ.Field(i).Tag.Get("parquet"), ",")
		if !strings.Contains(opts, "optional") {
			continue // required: set in every row (the test names rows by source_line)
		}
		cols = append(cols, column{i, name})
	}
	const blocks = 64
	rng := rand.New(rand.NewPCG(8, uint64(len(cols))))
	densities := []float64{0.01, 0.1, 0.5, 0.9, 0.99}
	n := blocks*64 + len(densities)*blocks*64
	present := make([][]bool, n) // present[row][col]
	for r := range present {
		present[r] = make([]bool, len(cols))
		for c := range cols {
			if r < blocks*64 {
				present[r][c] = r%64 == (r/64+c)%64 // one value per block, at every offset
			} else {
				present[r][c] = rng.Float64() < densities[(r-blocks*64)/(blocks*64)]
			}
		}
	}

	sk := newSink[T](dir, tier, "roundtrip")
	for r := range n {
		row := sk.slot()
		*row = *new(T)
		v := reflect.ValueOf(row).Elem()
		for c, col := range cols {
			if present[r][c] {
				setValue(v.Field(col.field), r, c)
			}
		}
		record.SetSource(row, "f.log", int64(r))
		v.FieldByName("Format").SetString("test")
		if err := sk.commit(); err != nil {
			t.Fatal(err)
		}
	}
	if err := sk.close(); err != nil {
		t.Fatal(err)
	}

	names := make([]string, len(cols))
	for c, col := range cols {
		names[c] = col.name
	}
	q := fmt.Sprintf("SELECT source_line, %s FROM read_parquet('%s') ORDER BY source_line",
		strings.Join(names, ", "), filepath.Join(dir, string(tier), "*", "*.parquet"))
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	got := make([]any, len(cols)+1)
	ptrs := make([]any, len(got))
	for i := range got {
		ptrs[i] = &got[i]
	}
	bad, read := 0, 0
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := int(got[0].(int64))
		read++
		for c, col := range cols {
			want := any(nil)
			if present[r][c] {
				want = wantValue(typ.Field(col.field).Type, r, c)
			}
			have := got[c+1]
			if tm, ok := have.(time.Time); ok {
				have = tm.UnixNano()
			}
			if have != want {
				if bad++; bad <= 10 {
					t.Errorf("%s row %d column %s: read %v (%T), wrote %v", tier, r, col.name, have, have, want)
				}
			}
		}
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	if read != n {
		t.Errorf("%s: read %d rows, wrote %d", tier, read, n)
	}
	if bad > 10 {
		t.Errorf("%s: %d wrong values in all", tier, bad)
	}
}

// setValue gives field f of row r a non-zero value that names the row and
// the column, so a value written in the wrong row is caught too.
func setValue(f reflect.Value, r, c int) {
	switch want := wantValue(f.Type(), r, c).(type) {
	case int64:
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&want))
		} else {
			f.SetInt(want)
		}
	case int32:
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&want))
		} else {
			f.SetInt(int64(want))
		}
	case bool:
		f.Set(reflect.ValueOf(&want))
	case string:
		f.SetString(want)
	}
}

// wantValue is the value setValue writes, as DuckDB scans it (timestamps
// as Unix ns).
func wantValue(t reflect.Type, r, c int) any {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int64:
		return int64(1796032800_000_000_000 + r*1000 + c)
	case reflect.Int32:
		return int32(100 + r*10 + c)
	case reflect.Bool:
		return (r+c)%2 == 0
	case reflect.String:
		return fmt.Sprintf("v%d.%d", r, c)
	}
	panic("no test value for " + t.String())
}

// TestEmptyTierSQL keeps the third statement of each tier's columns, the
// typed empty table analyze unions a tier's parts onto
// (queries/empty_<tier>.sql), equal to what ingest writes: the Parquet of
// one row, read by DuckDB, has the same column names and DuckDB types, in
// the same order. With TestWireSchema (row type = wire type) the row type
// in ingest/record is the one source of a tier's schema.
func TestEmptyTierSQL(t *testing.T) {
	t.Parallel()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct {
		tier  Tier
		write func(dir string) error
	}{
		{Client, func(dir string) error { return writeOne[ClientRow](dir, Client) }},
		{Gateway, func(dir string) error { return writeOne[GatewayRow](dir, Gateway) }},
		{Server, func(dir string) error { return writeOne[ServerRow](dir, Server) }},
	} {
		dir := t.TempDir()
		if err := c.write(dir); err != nil {
			t.Fatal(err)
		}
		written := describe(t, db, fmt.Sprintf("SELECT * FROM read_parquet('%s', hive_partitioning = false)", filepath.Join(dir, string(c.tier), "*", "*.parquet")))
		empty := describe(t, db, strings.TrimSuffix(strings.TrimSpace(queries.MustGet("empty_"+string(c.tier))), ";"))
		if c.tier == Server {
			// The columns of the TGI match by time, which analyze fills and
			// ingest never writes.
			analyzeOnly := map[string]bool{"joined_by VARCHAR": true, "match_candidates INTEGER": true}
			kept := empty[:0:0]
			for _, col := range empty {
				if !analyzeOnly[col] {
					kept = append(kept, col)
				}
			}
			if len(empty)-len(kept) != len(analyzeOnly) {
				t.Errorf("queries/empty_server.sql lacks the columns analyze fills: %v", analyzeOnly)
			}
			empty = kept
		}
		if strings.Join(written, "\n") != strings.Join(empty, "\n") {
			t.Errorf("queries/empty_%s.sql has the columns\n%s\nbut ingest writes\n%s", c.tier, strings.Join(empty, "\n"), strings.Join(written, "\n"))
		}
	}
}

// writeOne writes one row of a tier through the sink.
func writeOne[T Row](dir string, tier Tier) error {
	sk := newSink[T](dir, tier, "schema")
	row := sk.slot()
	*row = *new(T)
	record.SetSource(row, "f.log", 1)
	if err := sk.commit(); err != nil {
		return err
	}
	return sk.close()
}

// describe lists the columns of query q as "name TYPE".
func describe(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rs, err := db.Query("DESCRIBE " + q)
	if err != nil {
		t.Fatalf("describe %s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%v %v", vals[0], vals[1]))
	}
	return out
}
