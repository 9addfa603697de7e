package duck

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	// The DuckDB driver, registered as "duckdb".
	_ "github.com/duckdb/duckdb-go/v2"
)

// Resources bounds what DuckDB may use while Run or Summarize works on DIR.
// The zero value means the defaults.
type Resources struct {
	// MemoryLimit is DuckDB's memory_limit in bytes: beyond it, sorts,
	// joins, windows and aggregates spill to TempDirName under DIR rather
	// than fail. 0 means DefaultMemoryLimit.
	MemoryLimit int64
	// Threads is the number of DuckDB worker threads; 0 means one per core.
	Threads int
	// Profile, when not empty, is a directory where each step's wall and CPU time
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

// Open opens a private in-memory DuckDB for work on dir, bounded by res:
// its memory limit, threads, and a spill directory dir/TempDirName. The
// returned close function closes the database and removes the spill
// directory.
func Open(ctx context.Context, dir string, res Resources) (*sql.DB, func(), error) {
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
	db, err := OpenMemory(ctx)
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
		"SET temp_directory = " + Quote(tmp),
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
	if err := CreateMacros(ctx, db); err != nil {
		done()
		return nil, nil, err
	}
	return db, done, nil
}

// OpenMemory opens a private in-memory DuckDB. It is limited to one connection
// so that session settings and views apply to every statement.
func OpenMemory(ctx context.Context) (*sql.DB, error) {
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

// Quote quotes s as a SQL string literal.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// Strip trims whitespace and a trailing semicolon so a query file can be
// nested in a larger statement.
func Strip(q string) string {
	return strings.TrimSuffix(strings.TrimSpace(q), ";")
}
