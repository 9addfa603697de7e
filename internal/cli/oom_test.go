package cli

import "testing"

// TestOutOfMemoryMessage: the text, whatever DuckDB's data needs.
func TestOutOfMemoryMessage(t *testing.T) {
	t.Parallel()
	got := outOfMemory("compare", "step x: ", "failed to allocate data of size 16.0 KiB (16.0 MiB/16.0 MiB used)")
	want := "infertrace compare: step x: out of memory: failed to allocate data of size 16.0 KiB (16.0 MiB/16.0 MiB used)\n" +
		"DuckDB needed more than the memory limit allows; to stay within it, try:\n" +
		"  --memory-limit SIZE  a larger limit, if the machine has the memory (default 1GiB)\n" +
		"  --threads N          fewer threads: each holds buffers of its own (--threads 1 needs the least)\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
