package infertrace_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The Markdown pages whose relative links must resolve: the front door, the
// manual and the measurements.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md", "bench/RESULTS.md"}, pages...)
}

var (
	fence = regexp.MustCompile("(?ms)^```.*?^```")
	link  = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
)

// outsideFences is a page's text with its fenced code blocks blanked out.
func outsideFences(s string) string {
	return fence.ReplaceAllString(s, "")
}

// anchor is the id GitHub gives a heading: lower case, letters, digits,
// '-' and '_' kept, spaces as '-', other characters dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// anchors are the ids of a page's headings outside code fences.
func anchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, l := range strings.Split(outsideFences(string(b)), "\n") {
		if h := strings.TrimLeft(l, "#"); h != l && strings.HasPrefix(h, " ") {
			ids[anchor(strings.TrimSpace(h))] = true
		}
	}
	return ids
}

// TestDocsLinks: every relative link of README.md, docs/*.md and
// bench/RESULTS.md names a file that exists, and a #fragment names a heading
// of that file, so moving a section cannot leave a link pointing nowhere.
func TestDocsLinks(t *testing.T) {
	t.Parallel()
	var n int
	for _, page := range docPages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(outsideFences(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			n++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", page, target, err)
				continue
			}
			if frag != "" && !anchors(t, path)[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", page, target, path, frag)
			}
		}
	}
	if n < 20 {
		t.Errorf("found only %d relative links: is the link pattern still right?", n)
	}
}

// TestDocsIndexed: the README and the index of docs/ link every page of
// docs/.
func TestDocsIndexed(t *testing.T) {
	t.Parallel()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"README.md", "docs/README.md"} {
		b, err := os.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		linked := map[string]bool{}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			file, _, _ := strings.Cut(m[1], "#")
			linked[filepath.Clean(filepath.Join(filepath.Dir(index), file))] = true
		}
		for _, p := range pages {
			if p != index && !linked[filepath.Clean(p)] {
				t.Errorf("%s does not link %s", index, p)
			}
		}
	}
}

func TestAnchor(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Metric glossary: infertrace beside the benchmark tools": "metric-glossary-infertrace-beside-the-benchmark-tools",
		"One run, one set of files":                              "one-run-one-set-of-files",
		"Quick start":                                            "quick-start",
		"What if: the logged traffic through a changed pool":     "what-if-the-logged-traffic-through-a-changed-pool",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}
