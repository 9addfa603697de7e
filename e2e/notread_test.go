package e2e

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportNamesFilesNotRead: a run on logs of which one gzip file is cut
// short, one has garbage after its gzip header and one is a symlink loop
// exits 1, and its report says so where the data's trust is judged: the
// headline and Data quality name each file not read to its end with why,
// and the inputs table is followed by the same list. A file read to its
// end is named nowhere.
func TestReportNamesFilesNotRead(t *testing.T) {
	t.Parallel()
	args := simulateInputs(t, 3, 400)
	gw := filepath.Dir(args[3]) // the gateway directory
	files, _ := filepath.Glob(filepath.Join(gw, "*"))
	if len(files) < 2 {
		t.Fatalf("want two gateway files, got %v", files)
	}
	plain, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain)
	zw.Close()
	os.Remove(files[0])
	cut := files[0] + ".gz"
	os.WriteFile(cut, gz.Bytes()[:gz.Len()*6/10], 0o644)
	garbage := filepath.Join(gw, "garbage.jsonl.gz")
	os.WriteFile(garbage, append(gz.Bytes()[:10:10], "not deflate at all\n"...), 0o644)
	loop := filepath.Join(gw, "loop.jsonl")
	os.Symlink(loop, loop)

	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, append(append([]string{"run"}, args...), "--out", out, "-q")...)
	if code != 1 || !strings.Contains(stderr, "3 of ") {
		t.Fatalf("exit %d, want 1 for three files not read to the end\n%s\n%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := string(md)
	headline := regexp.MustCompile(`(?m)^\*\*Can the data be trusted\.\*\* .*$`).FindString(report)
	quality := between(report, "## Data quality", "### Inputs")
	inputs := between(report, "### Inputs", "### Join coverage")
	for _, want := range []string{
		"3 files not read to their end",
		cut + ": after line ",
		garbage + ": after line 0: flate: corrupt input",
		loop + ": cannot open: too many levels of symbolic links",
	} {
		for name, text := range map[string]string{"headline": headline, "Data quality": quality} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
	for _, want := range []string{
		"Not read to their end",
		"- " + cut + " (gateway): after line ",
		"- " + garbage + " (gateway): after line 0: flate: corrupt input",
		"- " + loop + " (gateway): cannot open: too many levels of symbolic links",
	} {
		if !strings.Contains(inputs, want) {
			t.Errorf("Inputs lacks %q:\n%s", want, inputs)
		}
	}
	if strings.Contains(headline+quality, files[1]) {
		t.Errorf("a file read whole is named as not read:\n%s\n%s", headline, quality)
	}
	html, _ := os.ReadFile(filepath.Join(out, "report.html"))
	if !bytes.Contains(html, []byte("Not read to their end")) || !bytes.Contains(html, []byte("cannot open: too many levels of symbolic links")) {
		t.Errorf("report.html does not name the files not read")
	}
}

// between is the text of s from the line start to the line end (or the
// end of s).
func between(s, start, end string) string {
	i := strings.Index(s, "\n"+start+"\n")
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.Index(s, "\n"+end+"\n"); j >= 0 {
		s = s[:j]
	}
	return s
}
