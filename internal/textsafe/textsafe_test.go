package textsafe

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"llama-3.1-8b":          "llama-3.1-8b",
		"a\x00b":                `a\x00b`,
		"line\nbreak\ttab\r":    `line\x0abreak\x09tab\x0d`,
		"esc\x1b[31mred":        `esc\x1b[31mred`,
		"del\x7f":               `del\x7f`,
		"c1\u0085":              `c1\x85`,
		"rtl\u202eevil\u202c":   `rtl\u202eevil\u202c`,
		"iso\u2066x\u2069":      `iso\u2066x\u2069`,
		"zero\u200bwidth\ufeff": `zero\u200bwidth\ufeff`,
		"bad\xffutf8":           `bad\xffutf8`,
		"naïve ✓ 模型":            "naïve ✓ 模型",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	if got := Cut("abcdefghij", 5); got != "ab…ij" {
		t.Errorf("Cut to 5 = %q", got)
	}
	if got := Cut("abcde", 5); got != "abcde" {
		t.Errorf("Cut of a short string = %q", got)
	}
	if got := Cut("ééééééé", 4); got != "é…éé" {
		t.Errorf("Cut keeps whole runes: %q", got)
	}
	long := strings.Repeat("m", 1<<20)
	if got := Label(long); utf8.RuneCountInString(got) != LabelMax {
		t.Errorf("Label of 1 MiB has %d runes", utf8.RuneCountInString(got))
	}
}
