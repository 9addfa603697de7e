package ingest

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/ingest/record"
)

// noRowsError is the manifest error of a file read with a named or sniffed
// format that made no row of its non-blank lines: a wrong format, not an
// empty log. units is the file's non-blank lines, 0 for a document
// format that found no record in a file that has some.
func noRowsError(f *record.Format, units int64) string {
	hint := "is it another format? Name it as FORMAT:GLOB"
	if f.NoRowsHint != "" {
		hint = f.NoRowsHint
	}
	if units == 0 { // a document format counts the records it finds as its lines
		return fmt.Sprintf("0 of the file's non-blank lines were %s records: %s", f.Name, hint)
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
