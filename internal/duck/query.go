package duck

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/infertrace/infertrace/queries"
)

// Rows runs the named query and returns each row as a map from column
// name to value.
func Rows(ctx context.Context, db *sql.DB, name string) ([]map[string]any, error) {
	q, err := queries.Get(name)
	if err != nil {
		return nil, err
	}
	Step(ctx, name)
	return Maps(ctx, db, name, q)
}

// Maps runs the statement q (named name in errors) and returns every
// row as a map from column name to value.
func Maps(ctx context.Context, db *sql.DB, name, q string) (out []map[string]any, err error) {
	rows, done, err := ProfilerOf(db).Query(ctx, db, name, q)
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

// TempTable runs the named query into a temporary table of its name.
func TempTable(ctx context.Context, db *sql.DB, name string) error {
	q, err := queries.Get(name)
	if err != nil {
		return err
	}
	Step(ctx, name)
	if err := ProfilerOf(db).Exec(ctx, db, name, "CREATE OR REPLACE TEMP TABLE "+name+" AS "+Strip(q)); err != nil {
		return fmt.Errorf("query %s: %w", name, err)
	}
	return nil
}
