package analyze

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	// The DuckDB driver, registered as "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/infertrace/infertrace/queries"
)

// Tiers are the log tiers on a request's path, in path order.
var Tiers = []string{"client", "gateway", "server"}

// Resources bounds what DuckDB may use while Run or Summarize works on DIR.
// The zero value means the defaults.
type Resources struct {
	// MemoryLimit is DuckDB's memory_limit in bytes: beyond it, sorts,
	// joins, windows and aggregates spill to TempDirName under DIR rather
	// than fail. 0 means DefaultMemoryLimit.
	MemoryLimit int64
	// Threads is the number of DuckDB worker threads; 0 means one per core.
	Threads int
	// Profile, when not empty, is a directory where each step's wall time
	// (steps.tsv) and DuckDB's profile of it (NNN-step.json) are written.
	Profile string
}

// DefaultMemoryLimit is the memory_limit used when Resources.MemoryLimit is
// 0. DuckDB's own memory (Go's and the Parquet reader's buffers come on top)
// stays within it, so a run's peak RSS stays near 2 GiB whatever the input.
const DefaultMemoryLimit = 1 << 30

// MinMemoryLimit is the smallest memory limit accepted: below it DuckDB
// cannot hold even one block per thread.
const MinMemoryLimit = 16 << 20

// MaxThreads bounds Resources.Threads. DuckDB gives each thread its own
// buffers out of the memory limit, so threads beyond the cores only cost
// memory: 100000 of them ran out of it after 87 s.
const MaxThreads = 256

// TempDirName is the directory under DIR where DuckDB spills what does not
// fit in the memory limit. Run and Summarize remove it when they finish.
const TempDirName = ".duckdb-tmp"

// ParseMemory reads a memory size: a number of bytes, or a number with one
// of the units B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB
// (powers of 1024), case-insensitive, with an optional space ("1.5GB",
// "1536 MiB", "2147483648").
func ParseMemory(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	scale, ok := map[string]float64{
		"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	}[unit]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" {
		return 0, fmt.Errorf("memory size %q: want a number of bytes or a number with a unit (KB, MB, GB, KiB, MiB, GiB)", s)
	}
	b := v * scale
	if b < MinMemoryLimit || b > 1<<50 {
		return 0, fmt.Errorf("memory size %q: want at least %d MiB", s, MinMemoryLimit>>20)
	}
	return int64(b), nil
}

// openIn opens a private in-memory DuckDB for work on dir, bounded by res:
// its memory limit, threads, and a spill directory dir/TempDirName. The
// returned close function closes the database and removes the spill
// directory.
func openIn(ctx context.Context, dir string, res Resources) (*sql.DB, func(), error) {
	limit := res.MemoryLimit
	if limit == 0 {
		limit = DefaultMemoryLimit
	}
	if limit < MinMemoryLimit {
		return nil, nil, fmt.Errorf("memory limit %d bytes: want at least %d MiB", limit, MinMemoryLimit>>20)
	}
	if res.Threads < 0 || res.Threads > MaxThreads {
		return nil, nil, fmt.Errorf("threads %d: want 1 to %d, or 0 for one per core", res.Threads, MaxThreads)
	}
	tmp := filepath.Join(dir, TempDirName)
	// What a killed run left there is of no use to this one.
	if err := os.RemoveAll(tmp); err != nil {
		return nil, nil, fmt.Errorf("spill directory: %w", err)
	}
	db, err := openDB(ctx)
	if err != nil {
		return nil, nil, err
	}
	done := func() {
		profilers.Delete(db)
		db.Close()
		os.RemoveAll(tmp)
	}
	if prof, err := newProfiler(res.Profile); err != nil {
		done()
		return nil, nil, err
	} else if prof != nil {
		profilers.Store(db, prof)
	}
	settings := []string{
		fmt.Sprintf("SET memory_limit = '%dB'", limit),
		"SET temp_directory = " + sqlString(tmp),
		// Results without an ORDER BY need not keep the input's order:
		// lets DuckDB stream and spill more freely.
		"SET preserve_insertion_order = false",
		// DuckDB allocates with a bundled jemalloc, which hands freed pages
		// back to the system only as it allocates again: after a step that
		// spilled, up to 1.5 GiB of freed pages stayed resident beside a
		// buffer pool of 35 MiB (10M requests). Background threads return
		// them on jemalloc's own schedule (dirty pages decay in 1 s).
		"SET allocator_background_threads = true",
	}
	if res.Threads > 0 {
		settings = append(settings, fmt.Sprintf("SET threads = %d", res.Threads))
	}
	for _, s := range settings {
		if _, err := db.ExecContext(ctx, s); err != nil {
			done()
			return nil, nil, fmt.Errorf("duckdb: %s: %w", s, err)
		}
	}
	if err := createMacros(ctx, db); err != nil {
		done()
		return nil, nil, err
	}
	return db, done, nil
}

// openDB opens a private in-memory DuckDB. It is limited to one connection
// so that session settings and views apply to every statement.
func openDB(ctx context.Context) (*sql.DB, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, fmt.Errorf("open duckdb: %w", err)
	}
	db.SetMaxOpenConns(1)
	// Casts between TIMESTAMP WITH TIME ZONE and TIMESTAMP must not depend
	// on the host's zone (a DST change would shift times inside one tier).
	if _, err := db.ExecContext(ctx, "SET TimeZone = 'UTC'"); err != nil {
		db.Close()
		return nil, fmt.Errorf("duckdb: set time zone: %w", err)
	}
	return db, nil
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// stripSQL trims whitespace and a trailing semicolon so a query file can be
// nested in a larger statement.
func stripSQL(q string) string {
	return strings.TrimSuffix(strings.TrimSpace(q), ";")
}

// parquetParts lists the Parquet parts of a tier in name order: those in
// the partition directories DIR/tier/date=D/ whose day may hold rows of w
// (partitionInWindow), and any directly in DIR/tier; of the runs the
// manifest lists when it lists batches (storeRuns). A missing directory
// yields no parts.
func parquetParts(dir, tier string, w Window) ([]string, error) {
	runs, err := storeRuns(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(filepath.Join(dir, tier))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s parts: %w", tier, err)
	}
	var parts []string
	add := func(sub string, entries []os.DirEntry) {
		for _, e := range entries {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".parquet") && (sub == "" || partOfRuns(e.Name(), runs)) {
				parts = append(parts, filepath.Join(dir, tier, sub, e.Name()))
			}
		}
	}
	add("", entries)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), partitionPrefix) || !partitionInWindow(e.Name(), w) {
			continue
		}
		sub, err := os.ReadDir(filepath.Join(dir, tier, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("list %s parts: %w", tier, err)
		}
		add(e.Name(), sub)
	}
	sort.Strings(parts)
	return parts, nil
}

// registerTiers creates the client, gateway and server_logged views: the
// typed empty table of each tier (queries empty_<tier>) unioned BY NAME with
// the tier's Parquet parts, so missing tiers and missing columns read as
// NULL, and a last column rid, a BIGINT unique to each row of the view.
// The server tier is server_logged, as ingested; the server view that
// requests.sql reads is made from it by matchServers.
func registerTiers(ctx context.Context, db *sql.DB, dir string) error {
	return registerTiersIn(ctx, db, dir, Window{})
}

// registerTiersIn is registerTiers limited to the rows whose own start
// (tierTimeColumn) is in w, and rows without a start: only the partitions
// that overlap w are listed, and the day partitions' parts are read with
// the condition on the start alone (their rows all have one), which lets
// DuckDB skip the row groups whose statistics lie outside w
// (TestWindowSkipsRowGroups); the other parts (rows without a start) are
// read whole. The partition directory is no column (hive_partitioning
// off), so the views have the files' columns.
func registerTiersIn(ctx context.Context, db *sql.DB, dir string, w Window) error {
	for _, tier := range Tiers {
		name := tier
		if tier == "server" {
			name = "server_logged"
		}
		empty, err := queries.Get("empty_" + tier)
		if err != nil {
			return err
		}
		parts, err := parquetParts(dir, tier, w)
		if err != nil {
			return err
		}
		// rid identifies a row within this analysis: the part's index in
		// parts and the row's number in the part (requests.sql picks up a
		// kept record's columns by it).
		if len(parts) >= 1<<20 {
			return fmt.Errorf("register %s tier: %d Parquet parts, more than the %d one analysis can number", tier, len(parts), 1<<20)
		}
		view := "CREATE OR REPLACE VIEW " + name + " AS SELECT *, NULL::BIGINT AS rid FROM (\n" + stripSQL(empty) + "\n)"
		// scan adds parts, whose first is parts[base], read with where.
		scan := func(parts []string, base int, where string) {
			if len(parts) == 0 {
				return
			}
			quoted := make([]string, len(parts))
			for i, p := range parts {
				quoted[i] = sqlString(p)
			}
			view += "\nUNION ALL BY NAME\nSELECT *, ((file_index::BIGINT + " + strconv.Itoa(base) + ") << 40) + file_row_number AS rid FROM read_parquet([" +
				strings.Join(quoted, ", ") + "], union_by_name = true, hive_partitioning = false)"
			if where != "" {
				view += "\nWHERE " + where
			}
		}
		c := w.cond(tierTimeColumn[tier])
		if c == "" {
			scan(parts, 0, "")
		} else {
			// A day's rows all have a start, so its parts take the
			// window's condition alone: DuckDB skips row groups by their
			// statistics only for a condition without OR (with "c OR col
			// IS NULL" it reads every row group, and "col IS NULL" in a
			// scan of its own reads the column of every row group).
			var days, others []string
			for _, p := range parts {
				if dayPartition(filepath.Base(filepath.Dir(p))) {
					days = append(days, p)
				} else {
					others = append(others, p)
				}
			}
			scan(days, 0, c)
			scan(others, len(days), c+" OR "+tierTimeColumn[tier]+" IS NULL")
		}
		if _, err := db.ExecContext(ctx, view); err != nil {
			return fmt.Errorf("register %s tier: %w", tier, err)
		}
	}
	return nil
}

// registerRejects creates the rejects view over DIR/rejects.jsonl (only the
// tier, file, line, kind and reason fields; never the raw text). An absent
// file reads as no rejects.
func registerRejects(ctx context.Context, db *sql.DB, dir string) error {
	empty, err := queries.Get("empty_rejects")
	if err != nil {
		return err
	}
	view := "CREATE OR REPLACE VIEW rejects AS SELECT * FROM (\n" + stripSQL(empty) + "\n)"
	path := filepath.Join(dir, "rejects.jsonl")
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("rejects: %w", err)
	case st.Size() > 0:
		view += "\nUNION ALL BY NAME\nSELECT * FROM read_json(" + sqlString(path) +
			", format = 'newline_delimited', ignore_errors = true, columns = " +
			"{tier: 'VARCHAR', file: 'VARCHAR', line: 'BIGINT', kind: 'VARCHAR', reason: 'VARCHAR'})"
	}
	if _, err := db.ExecContext(ctx, view); err != nil {
		return fmt.Errorf("register rejects: %w", err)
	}
	return nil
}

// registerRequests creates the requests view over DIR/requests.parquet.
func registerRequests(ctx context.Context, db *sql.DB, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		return fmt.Errorf("%s holds no %s: run infertrace analyze %s first", dir, filepath.Base(path), dir)
	} else if err != nil {
		return fmt.Errorf("cannot read %s: %w", path, err)
	}
	_, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW requests AS SELECT * FROM read_parquet("+sqlString(path)+")")
	if err != nil {
		return fmt.Errorf("register requests: %w", err)
	}
	return nil
}

// queryRows runs the named query and returns each row as a map from column
// name to value.
func queryRows(ctx context.Context, db *sql.DB, name string) ([]map[string]any, error) {
	q, err := queries.Get(name)
	if err != nil {
		return nil, err
	}
	step(ctx, name)
	return queryMaps(ctx, db, name, q)
}

// queryMaps runs the statement q (named name in errors) and returns every
// row as a map from column name to value.
func queryMaps(ctx context.Context, db *sql.DB, name, q string) (out []map[string]any, err error) {
	rows, done, err := profilerOf(db).query(ctx, db, name, q)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", name, err)
	}
	defer func() {
		rows.Close()
		if derr := done(nil); derr != nil && err == nil {
			err = derr
		}
	}()
	cols, err := rows.Columns()
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", name, err)
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("query %s: %w", name, err)
		}
		m := make(map[string]any, len(cols))
		for i, c := range cols {
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("query %s: %w", name, err)
	}
	return out, nil
}
