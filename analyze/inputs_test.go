package analyze

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesNotRead: the data headline names each file not read to its end
// with why (at most headlineFiles of them, then how many more), Data
// quality names them all, and a file read whole with an error is named
// apart, never as not read.
func TestFilesNotRead(t *testing.T) {
	t.Parallel()
	r := &Result{Coverage: Coverage{Requests: 10, Client: 10}, RejectsTotal: 1}
	r.Inputs.Files = []InputFile{
		{Tier: "client", Path: "logs/a.jsonl.gz", Lines: 2991, Rows: 2990, Rejected: 1, Error: "after line 2990: unexpected EOF", Incomplete: true},
		{Tier: "client", Path: "logs/b.jsonl", Lines: 5, Rows: 5},
		{Tier: "client", Path: "logs/c.log", Lines: 3, Rejected: 3, Error: "0 of 3 lines were native records: is it another format?"},
	}
	h := dataHeadline(r)
	if want := "1 line rejected, 1 file not read to its end (logs/a.jsonl.gz: after line 2990: unexpected EOF) — see Data quality."; !strings.HasSuffix(h, want) {
		t.Errorf("headline %q\nwant it to end %q", h, want)
	}
	got := strings.Join(inputFindings(r.Inputs), "\n")
	for _, want := range []string{
		"1 file not read to its end (logs/a.jsonl.gz: after line 2990: unexpected EOF): what each held after the error is in no count and no figure.",
		"1 file with an error (logs/c.log: 0 of 3 lines were native records: is it another format?).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "logs/b.jsonl") {
		t.Errorf("a file read whole is named:\n%s", got)
	}

	r.Inputs.Files = nil
	for i := range 7 {
		r.Inputs.Files = append(r.Inputs.Files, InputFile{Path: fmt.Sprintf("logs/%d", i), Error: "cannot open: permission denied", Incomplete: true})
	}
	h = dataHeadline(r)
	if !strings.Contains(h, "7 files not read to their end (logs/0: cannot open: permission denied; ") ||
		!strings.Contains(h, "logs/4: cannot open: permission denied; and 2 more, named under Inputs)") || strings.Contains(h, "logs/5") {
		t.Errorf("headline of 7 files not read: %q", h)
	}
	if got := strings.Join(inputFindings(r.Inputs), "\n"); !strings.Contains(got, "logs/6: cannot open") {
		t.Errorf("Data quality does not name every file: %s", got)
	}
	// No request at all: the headline still says which files were not read.
	r.Coverage = Coverage{}
	if hs := headlines(r); len(hs) != 1 || !strings.Contains(hs[0].Text, "7 files not read to their end") {
		t.Errorf("no requests: %+v", hs)
	}
}

// TestReadManifestErrors: a file's error comes without the path that
// starts it, an open error says "cannot open", and only a file whose
// reading stopped is Incomplete.
func TestReadManifestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"version":2,"files":[
{"tier":"client","path":"logs/a.gz","lines":2991,"error":"logs/a.gz: after line 2990: unexpected EOF","incomplete":true},
{"tier":"client","path":"logs/b","error":"open logs/b: permission denied","incomplete":true},
{"tier":"client","path":"logs/c","lines":3,"rejected":3,"error":"unknown format: no format reads it"},
{"tier":"client","path":"logs/d","lines":3,"incomplete":true}]}`), 0o644)
	in, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		err        string
		incomplete bool
	}{{"after line 2990: unexpected EOF", true}, {"cannot open: permission denied", true}, {"unknown format: no format reads it", false}, {"", false}}
	for i, f := range in.Files {
		if f.Error != want[i].err || f.Incomplete != want[i].incomplete {
			t.Errorf("%s: got %q %v, want %q %v", f.Path, f.Error, f.Incomplete, want[i].err, want[i].incomplete)
		}
	}
	if n, o := len(in.NotRead()), len(in.OtherErrors()); n != 2 || o != 1 {
		t.Errorf("NotRead %d, OtherErrors %d; want 2 and 1", n, o)
	}
}
