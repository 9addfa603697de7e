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

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// Tiers are the log tiers on a request's path, in path order.
var Tiers = []string{"client", "gateway", "server"}

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
	parts, _, err := batchParts(dir, tier, w, runs)
	return parts, err
}

// batchParts is parquetParts given the store's runs, with the number of the
// batch (partBatch) that wrote each part.
func batchParts(dir, tier string, w Window, runs map[string]int) ([]string, []int, error) {
	entries, err := os.ReadDir(filepath.Join(dir, tier))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list %s parts: %w", tier, err)
	}
	batch := map[string]int{}
	var parts []string
	add := func(sub string, entries []os.DirEntry) {
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".parquet") {
				continue
			}
			// A part directly in DIR/tier is of a store written before
			// batches: read whatever its name.
			b := partBatch(e.Name(), runs)
			if sub != "" && b == 0 {
				continue
			}
			p := filepath.Join(dir, tier, sub, e.Name())
			parts = append(parts, p)
			batch[p] = b
		}
	}
	add("", entries)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), partitionPrefix) || !partitionInWindow(e.Name(), w) {
			continue
		}
		sub, err := os.ReadDir(filepath.Join(dir, tier, e.Name()))
		if err != nil {
			return nil, nil, fmt.Errorf("list %s parts: %w", tier, err)
		}
		add(e.Name(), sub)
	}
	sort.Strings(parts)
	batches := make([]int, len(parts))
	for i, p := range parts {
		batches[i] = batch[p]
	}
	return parts, batches, nil
}

// registerTiers creates the client, gateway and server_logged views: the
// typed empty table of each tier (queries empty_<tier>) unioned BY NAME with
// the tier's Parquet parts, so missing tiers and missing columns read as
// NULL, and a last column rid, a BIGINT unique to each row of the view.
// The server tier is server_logged, as ingested; the server view that
// queries/requests reads is made from it by matchServers.
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
	runs, first, err := storeBatches(dir)
	if err != nil {
		return err
	}
	for _, tier := range Tiers {
		view, err := emptyTierView(tier)
		if err != nil {
			return err
		}
		parts, batches, err := batchParts(dir, tier, w, runs)
		if err != nil {
			return err
		}
		// numbered[i] is the batch of the part that scan numbers i.
		var numbered []int
		// rid identifies a row within this analysis: the part's index in
		// parts and the row's number in the part (queries/requests picks up a
		// kept record's columns by it).
		if len(parts) >= 1<<20 {
			return fmt.Errorf("register %s tier: %d Parquet parts, more than the %d one analysis can number", tier, len(parts), 1<<20)
		}
		// scan adds parts, numbered from len(numbered), read with where.
		scan := func(idx []int, where string) {
			if len(idx) == 0 {
				return
			}
			base := len(numbered)
			quoted := make([]string, len(idx))
			for i, k := range idx {
				quoted[i] = duck.Quote(parts[k])
				numbered = append(numbered, batches[k])
			}
			view += "\nUNION ALL BY NAME\nSELECT *, ((file_index::BIGINT + " + strconv.Itoa(base) + ") << 40) + file_row_number AS rid FROM read_parquet([" +
				strings.Join(quoted, ", ") + "], union_by_name = true, hive_partitioning = false)"
			if where != "" {
				view += "\nWHERE " + where
			}
		}
		c := w.cond(tierTimeColumn[tier])
		if c == "" {
			all := make([]int, len(parts))
			for i := range all {
				all[i] = i
			}
			scan(all, "")
		} else {
			// A day's rows all have a start, so its parts take the
			// window's condition alone: DuckDB skips row groups by their
			// statistics only for a condition without OR (with "c OR col
			// IS NULL" it reads every row group, and "col IS NULL" in a
			// scan of its own reads the column of every row group).
			var days, others []int
			for i, p := range parts {
				if dayPartition(filepath.Base(filepath.Dir(p))) {
					days = append(days, i)
				} else {
					others = append(others, i)
				}
			}
			scan(days, c)
			scan(others, c+" OR "+tierTimeColumn[tier]+" IS NULL")
		}
		if _, err := db.ExecContext(ctx, view); err != nil {
			return fmt.Errorf("register %s tier: %w", tier, err)
		}
		for _, m := range batchMacros(tier, numbered, first[tier]) {
			if _, err := db.ExecContext(ctx, m); err != nil {
				return fmt.Errorf("register %s tier: %w", tier, err)
			}
		}
	}
	return nil
}

// batchMacros are the statements that create the macros TIER_batch(rid),
// the number of the batch (storeRuns) whose part holds the row rid of the
// tier's view (numbered[i] for the part numbered i), and
// TIER_file(path, rid), the name of the file of that row: a log appended
// again under its name is another file (queries/tier.sql.tmpl, tier_files),
// named PATH@B in each batch B but the first that holds path (first, from
// the manifest, holds the paths of more than one batch: so neither an
// append nor a window renames a file).
func batchMacros(tier string, numbered []int, first map[string]int) []string {
	batch := "CREATE OR REPLACE TEMP MACRO " + tier + "_batch(rid) AS "
	one := true
	for _, b := range numbered {
		one = one && b == numbered[0]
	}
	switch {
	case len(numbered) == 0:
		batch += "1"
	case one:
		// One batch: a constant, which costs nothing per row.
		batch += strconv.Itoa(numbered[0])
	default:
		l := make([]string, len(numbered))
		for i, b := range numbered {
			l[i] = strconv.Itoa(b)
		}
		batch += "[" + strings.Join(l, ", ") + "][(rid >> 40) + 1]"
	}
	f := "CREATE OR REPLACE TEMP MACRO " + tier + "_file(path, rid) AS "
	if len(first) == 0 {
		f += "path"
	} else {
		paths := make([]string, 0, len(first))
		for p := range first {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		f += "CASE WHEN " + tier + "_batch(rid) > CASE path"
		for _, p := range paths {
			f += " WHEN " + duck.Quote(p) + " THEN " + strconv.Itoa(first[p])
		}
		f += " ELSE " + tier + "_batch(rid) END THEN path || '@' || " + tier + "_batch(rid) ELSE path END"
	}
	return []string{batch, f}
}

// registerRejects creates the rejects view over DIR/rejects.jsonl (only the
// tier, file, line, kind and reason fields; never the raw text). An absent
// file reads as no rejects.
func registerRejects(ctx context.Context, db *sql.DB, dir string) error {
	empty, err := queries.Get("empty_rejects")
	if err != nil {
		return err
	}
	view := "CREATE OR REPLACE VIEW rejects AS SELECT * FROM (\n" + duck.Strip(empty) + "\n)"
	path := filepath.Join(dir, "rejects.jsonl")
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("rejects: %w", err)
	case st.Size() > 0:
		view += "\nUNION ALL BY NAME\nSELECT * FROM read_json(" + duck.Quote(path) +
			", format = 'newline_delimited', ignore_errors = true, columns = " +
			"{tier: 'VARCHAR', file: 'VARCHAR', line: 'BIGINT', kind: 'VARCHAR', reason: 'VARCHAR'})"
	}
	if _, err := db.ExecContext(ctx, view); err != nil {
		return fmt.Errorf("register rejects: %w", err)
	}
	return nil
}

// registerRequests creates the requests view over DIR/requests.parquet,
// or over the parts at paths, in their order.
func registerRequests(ctx context.Context, db *sql.DB, paths ...string) error {
	for _, path := range paths {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			dir := filepath.Dir(path)
			return fmt.Errorf("%s holds no %s: run infertrace analyze %s first", dir, filepath.Base(path), dir)
		} else if err != nil {
			return fmt.Errorf("cannot read %s: %w", path, err)
		}
	}
	_, err := db.ExecContext(ctx, "CREATE OR REPLACE VIEW requests AS SELECT * FROM "+readParquet(paths))
	if err != nil {
		return fmt.Errorf("register requests: %w", err)
	}
	return nil
}

// emptyTierView is the statement that creates tier's view (the server
// tier's is server_logged) without rows, with the tier's columns and rid;
// registerTiersIn adds the parts' rows to it.
func emptyTierView(tier string) (string, error) {
	name := tier
	if tier == "server" {
		name = "server_logged"
	}
	empty, err := queries.Get("empty_" + tier)
	if err != nil {
		return "", err
	}
	return "CREATE OR REPLACE VIEW " + name + " AS SELECT *, NULL::BIGINT AS rid FROM (\n" + duck.Strip(empty) + "\n)", nil
}

// registerNoTiers creates the tier views without rows (an empty share of
// analyze --partition).
func registerNoTiers(ctx context.Context, db *sql.DB) error {
	for _, tier := range Tiers {
		view, err := emptyTierView(tier)
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, view); err != nil {
			return fmt.Errorf("register %s tier: %w", tier, err)
		}
		for _, m := range batchMacros(tier, nil, nil) {
			if _, err := db.ExecContext(ctx, m); err != nil {
				return fmt.Errorf("register %s tier: %w", tier, err)
			}
		}
	}
	return nil
}
