package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// TestFilesNotRead: the data headline names each file not read to its end
// with why (at most headlineFiles of them, then how many more), Data
// quality names them all, and a file read whole with an error is named
// apart, never as not read.
func TestFilesNotRead(t *testing.T) {
	t.Parallel()
	r := &analyze.Result{Coverage: analyze.Coverage{Requests: 10, Client: 10}, RejectsTotal: 1}
	r.Inputs.Files = []analyze.InputFile{
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
		r.Inputs.Files = append(r.Inputs.Files, analyze.InputFile{Path: fmt.Sprintf("logs/%d", i), Error: "cannot open: permission denied", Incomplete: true})
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
	r.Coverage = analyze.Coverage{}
	if hs := headlines(r, nil); len(hs) != 1 || !strings.Contains(hs[0].Text, "7 files not read to their end") {
		t.Errorf("no requests: %+v", hs)
	}
}
