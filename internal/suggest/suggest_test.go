package suggest

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"rag", "rag", 0}, {"rga", "rag", 1}, {"chta", "chat", 1},
		{"chat", "cat", 1}, {"code", "mode", 1}, {"kitten", "sitting", 3}, {"", "abc", 3},
	} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	cands := []string{"chat", "code", "rag", "summarize"}
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"rga", "rag", true},        // a transposition
		{"chta", "chat", true},      // within two edits
		{"summ", "summarize", true}, // the only candidate it begins
		{"rag", "rag", true},        // a candidate itself
		{"xyzzy", "", false},        // nothing close
		{"cod", "code", true},       // one edit
		{"c", "", false},            // too short to begin one
	} {
		got, ok := Nearest(c.word, cands)
		if got != c.want || ok != c.ok {
			t.Errorf("Nearest(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
	// Two candidates equally close: no guess.
	if got, ok := Nearest("cat", []string{"bat", "car"}); ok {
		t.Errorf("Nearest(cat, [bat car]) = %q: want no guess between two", got)
	}
}
