package duck

import (
	"errors"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// oomPrefix starts the text of DuckDB's out-of-memory errors.
const oomPrefix = "Out of Memory Error: "

// OutOfMemory says whether err is DuckDB's running out of the memory limit.
// If so, where is err's text before DuckDB's ("write requests.parquet: step
// client_miss: ", the step that ran out) and reason the first line of
// DuckDB's ("failed to pin block of size 256.0 KiB (15.9 MiB/16.0 MiB
// used)"); the rest of DuckDB's text is advice in SQL (SET threads=X),
// which infertrace's users give as flags instead.
func OutOfMemory(err error) (where, reason string, ok bool) {
	if err == nil {
		return "", "", false
	}
	var de *duckdb.Error
	isOOM := errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
	text := err.Error()
	i := strings.Index(text, oomPrefix)
	if i < 0 {
		if !isOOM {
			return "", "", false
		}
		return "", firstLine(de.Msg), true
	}
	return text[:i], firstLine(text[i+len(oomPrefix):]), true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.TrimSpace(s)
}
