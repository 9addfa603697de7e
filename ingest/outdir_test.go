package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSinkWritesUnderTempName: a Parquet part is part-NAME.parquet.tmp
// while it is written, and part-NAME.parquet only once it is complete, so
// analyze (which reads *.parquet) never sees half a file.
func TestSinkWritesUnderTempName(t *testing.T) {
	dir := t.TempDir()
	s := newSink[ClientRow](dir, Client, "w00")
	for i := range batchRows + 1 { // one full batch: the file is created
		*s.slot() = ClientRow{RequestID: fmt.Sprint("r", i)}
		if err := s.commit(); err != nil {
			t.Fatal(err)
		}
	}
	final := filepath.Join(dir, "client", "date=__HIVE_DEFAULT_PARTITION__", "part-w00.parquet")
	if _, err := os.Stat(final); err == nil {
		t.Errorf("%s exists before the part is complete", final)
	}
	if _, err := os.Stat(final + ".tmp"); err != nil {
		t.Errorf("the part being written: %v", err)
	}
	if err := s.close(); err != nil {
		t.Fatal(err)
	}
	rows, err := readParquet[ClientRow](final)
	if err != nil || len(rows) != batchRows+1 {
		t.Errorf("complete part: %d rows, %v", len(rows), err)
	}
	if _, err := os.Stat(final + ".tmp"); err == nil {
		t.Error("the temporary part is left after close")
	}
}

// TestRejectLogWritesUnderTempName: rejects.jsonl appears complete when the
// run closes it, and not at all when the run did not finish.
func TestRejectLogWritesUnderTempName(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rejects.jsonl")
	for _, finish := range []bool{false, true} {
		l, err := newRejectLog(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.add(Client, nil, &ParseError{File: "c.jsonl", Line: 3, Err: ErrSyntax})
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%s exists while it is written", path)
		}
		if !finish {
			l.discard()
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("a discarded reject log left %v", entries)
			}
			continue
		}
		if err := l.close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(b), `"file":"c.jsonl","line":3,"kind":"syntax"`) {
			t.Errorf("rejects.jsonl: %q, %v", b, err)
		}
	}
}

// TestRunSupersedesPreviousRun: ingest removes every file of an earlier run
// into DIR, complete or left under a temporary name by a killed run, and
// analyze's parts (DIR/requests/), and leaves only its own; files that are
// not infertrace's stay.
func TestRunSupersedesPreviousRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	previous := []string{"report.md", "report.html", "report.json", "slices.csv", "requests.parquet", "manifest.json", "rejects.jsonl",
		"report.md.tmp", "requests.parquet.tmp", "manifest.json.tmp", "rejects.jsonl.tmp",
		"client/part-w05.parquet", "server/part-f0003.parquet", "gateway/part-w01.parquet.tmp",
		"client/date=2026-11-29/part-0123456789abcdef01234567-w00.parquet",
		"server/date=__HIVE_DEFAULT_PARTITION__/part-0123456789abcdef01234567-f0001.parquet.tmp",
		"requests/part-0-of-2.parquet", "requests/part-1-of-2.parquet.tmp"}
	for _, name := range append(previous, "notes.txt") {
		os.MkdirAll(filepath.Dir(filepath.Join(out, name)), 0o755)
		os.WriteFile(filepath.Join(out, name), []byte("old"), 0o644)
	}
	in := filepath.Join(dir, "c.jsonl")
	os.WriteFile(in, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	m, err := Run(context.Background(), Options{Out: out, Workers: 1, Inputs: []Input{{Tier: Client, Pattern: in}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			got = append(got, rel)
		}
		return nil
	})
	if len(m.RunID) != 24 {
		t.Errorf("run ID %q", m.RunID)
	}
	if want := "client/date=2026-11-30/part-" + m.RunID + "-w00.parquet manifest.json notes.txt rejects.jsonl"; strings.Join(got, " ") != want {
		t.Errorf("files after the run: %v, want %s", got, want)
	}
	for _, d := range []string{"client/date=2026-11-29", "server/date=__HIVE_DEFAULT_PARTITION__", "requests"} {
		if _, err := os.Stat(filepath.Join(out, d)); err == nil {
			t.Errorf("the emptied partition %s is left", d)
		}
	}
	m2, err := Run(context.Background(), Options{Out: out, Workers: 1, Inputs: []Input{{Tier: Client, Pattern: in}}})
	if err != nil || m2.RunID == m.RunID {
		t.Errorf("two ingests of the same input share run ID %q (%v)", m.RunID, err)
	}
}

// TestLockOut: a second lock on one directory fails at once with the
// holder's process ID; Unlock frees it; a directory LockOut created and the
// run left empty is removed again.
func TestLockOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	l, err := LockOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockOut(dir)
	var inUse *InUseError
	want := fmt.Sprintf("%s is in use by another infertrace run (pid %d)", dir, os.Getpid())
	if !errors.As(err, &inUse) || !errors.Is(err, ErrInUse) || err.Error() != want {
		t.Errorf("second lock: %v, want %q", err, want)
	}
	if err := CheckOutFree(dir); err == nil || err.Error() != want {
		t.Errorf("CheckOutFree while locked: %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s, created by LockOut and left empty, is still there", dir)
	}
	if err := CheckOutFree(dir); err != nil {
		t.Errorf("CheckOutFree on a missing directory: %v", err)
	}

	// A directory that holds output keeps it, and its lock file.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte("{}"), 0o644)
	l, err = LockOut(dir)
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if err := CheckOutFree(dir); err != nil {
		t.Errorf("CheckOutFree after Unlock: %v", err)
	}
	l2, err := LockOut(dir)
	if err != nil {
		t.Errorf("lock after Unlock: %v", err)
	}
	l2.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		t.Error(err)
	}
}
