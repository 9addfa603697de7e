// Package textsafe makes text that came from a log safe to show: cut to a
// sane length, and with the characters that can rewrite what a reader sees
// (control characters, bidi overrides, zero-width characters) shown as
// escapes. The report and the terminal output both use it; it imports
// nothing of infertrace, so every package may.
package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// LabelMax is the most runes of a label (a model, a replica, a file name)
// a report or the terminal shows.
const LabelMax = 128

// Label is s cut to LabelMax runes and escaped: the form of every
// log-derived label in a report.
func Label(s string) string { return Escape(Cut(s, LabelMax)) }

// Cut returns s if it has at most n runes, else its first and last runes
// around an ellipsis, n runes in all, so both a model's name and a file's
// line number stay in sight.
func Cut(s string, n int) string {
	if n < 3 || utf8.RuneCountInString(s) <= n {
		return s
	}
	head, tail := (n-1)/2, n-1-(n-1)/2
	i := 0
	for k := 0; k < head; k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	j := len(s)
	for k := 0; k < tail; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
	}
	return s[:i] + "…" + s[j:]
}

// Escape shows the C0 and C1 control characters, DEL, the bidi controls
// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), the zero-width
// characters (U+200B–U+200D, U+2060, U+FEFF), the line and paragraph
// separators (U+2028, U+2029) and bytes that are not UTF-8 as \xNN or
// \uNNNN; everything else is kept.
func Escape(s string) string {
	k := 0
	for k < len(s) {
		r, size := utf8.DecodeRuneInString(s[k:])
		if unsafe(r, size) {
			break
		}
		k += size
	}
	if k == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:k])
	for i := k; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafe(r, size) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r, size):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func unsafe(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1:
		return true
	case r < 0x20, r == 0x7f, 0x80 <= r && r < 0xa0:
		return true
	case r == 0x061c, 0x200b <= r && r <= 0x200f, 0x2028 <= r && r <= 0x202e, 0x2060 <= r && r <= 0x2069, r == 0xfeff:
		return true
	}
	return false
}
