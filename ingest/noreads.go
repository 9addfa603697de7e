package ingest

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
)

// noRowsError is the manifest error of a file read with a named or sniffed
// format that made no row of its non-blank lines: a wrong format, not an
// empty log.
func noRowsError(f *record.Format, units int64) string {
	hint := "is it another format? Name it as FORMAT:GLOB"
	if f.NoRowsHint != "" {
		hint = f.NoRowsHint
	}
	return fmt.Sprintf("0 of %d lines were %s records: %s", units, f.Name, hint)
}

// IsFormatError reports whether a manifest error says the file's format
// could not be told, the format named made no rows of it, or its rows lack
// their times (timesError): the user is to name another format, not read
// the file again.
func IsFormatError(manifestError string) bool {
	return strings.HasPrefix(manifestError, ErrUnknownFormat.Error()+":") ||
		strings.HasPrefix(manifestError, "0 of ") && strings.Contains(manifestError, " records: ") ||
		strings.HasPrefix(manifestError, "format ") && strings.Contains(manifestError, " rows have no ")
}
