package duck

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/queries"
)

// CreateMacros creates the macros of queries/macros.sql: the statistical
// rules (percentile intervals, "n too small", Wilson intervals) every
// query shares, stated once.
func CreateMacros(ctx context.Context, db *sql.DB) error {
	for _, s := range strings.Split(queries.MustGet("macros"), ";\n") {
		if strings.TrimSpace(StripComments(s)) == "" {
			continue
		}
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("query macros: %w", err)
		}
	}
	return nil
}

// StripComments drops the -- comments of SQL text.
func StripComments(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.SplitN(l, "--", 2)[0])
		b.WriteByte('\n')
	}
	return b.String()
}
