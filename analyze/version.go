package analyze

import (
	"context"
	"fmt"

	"github.com/infertrace/infertrace/internal/duck"
)

// DuckDBVersion returns the version of the DuckDB library infertrace is
// built with, as DuckDB's version() says it ("v1.5.0"), for --version.
func DuckDBVersion(ctx context.Context) (string, error) {
	db, err := duck.OpenMemory(ctx)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&v); err != nil {
		return "", fmt.Errorf("duckdb: version: %w", err)
	}
	return v, nil
}
