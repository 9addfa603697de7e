package analyze

import (
	"testing"
	"time"
)

func TestFormatWindow(t *testing.T) {
	a := time.Date(2026, 3, 1, 23, 59, 59, 999_000_000, time.UTC)
	b := a.Add(1500 * time.Millisecond)
	if got, want := FormatWindow(&a, &a), "2026-03-01 23:59:59.999 – 23:59:59.999 UTC"; got != want {
		t.Errorf("same day: %q, want %q", got, want)
	}
	if got, want := FormatWindow(&a, &b), "2026-03-01 23:59:59.999 – 2026-03-02 00:00:01.499 UTC"; got != want {
		t.Errorf("across days: %q, want %q", got, want)
	}
	if got := FormatWindow(nil, &b); got != "–" {
		t.Errorf("empty window: %q", got)
	}
}

func TestPlural(t *testing.T) {
	if got := plural(1, "request is", "requests are"); got != "1 request is" {
		t.Error(got)
	}
	if got := plural(3, "request is", "requests are"); got != "3 requests are" {
		t.Error(got)
	}
}
