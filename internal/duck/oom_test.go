package duck

import (
	"errors"
	"fmt"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// duckdbOOM is the text DuckDB 1.4 gives when a step runs out of its
// memory limit.
const duckdbOOM = "Out of Memory Error: failed to pin block of size 256.0 KiB (15.9 MiB/16.0 MiB used)\n\n" +
	"Possible solutions:\n* Reducing the number of threads (SET threads=X)\n" +
	"* Increasing the memory limit (SET memory_limit='...GB')\n"

func TestOutOfMemory(t *testing.T) {
	t.Parallel()
	wrapped := fmt.Errorf("write requests.parquet: step client_miss: %w", &duckdb.Error{Type: duckdb.ErrorTypeOutOfMemory, Msg: duckdbOOM})
	where, reason, ok := OutOfMemory(wrapped)
	if !ok || where != "write requests.parquet: step client_miss: " || reason != "failed to pin block of size 256.0 KiB (15.9 MiB/16.0 MiB used)" {
		t.Errorf("wrapped: got %q, %q, %v", where, reason, ok)
	}
	// Only the text survived (wrapped with %v on the way).
	if _, reason, ok := OutOfMemory(fmt.Errorf("step x: %v", wrapped)); !ok || reason != "failed to pin block of size 256.0 KiB (15.9 MiB/16.0 MiB used)" {
		t.Errorf("as text: got %q, %v", reason, ok)
	}
	for _, err := range []error{nil, errors.New("step x: Binder Error: no column y"), &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: disk full"}} {
		if _, _, ok := OutOfMemory(err); ok {
			t.Errorf("%v: taken for out of memory", err)
		}
	}
}
