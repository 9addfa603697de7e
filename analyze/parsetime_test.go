package analyze

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// ParseTime reads every --from and --to: HH:MM[:SS] on the data's first
// day (UTC), a date at its midnight UTC, RFC 3339 in any zone; the first
// day is looked up only for a time of day.
func TestParseTime(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 11, 30, 9, 59, 58, 158_000_000, time.UTC)
	asked := 0
	first := func() (time.Time, error) { asked++; return day, nil }
	for _, tc := range []struct {
		in   string
		want time.Time
		day  bool
	}{
		{"10:00", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), true},
		{"9:05:30", time.Date(2026, 11, 30, 9, 5, 30, 0, time.UTC), true},
		{"2026-12-01", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), false},
		{"2026-11-30T12:00:00+02:00", time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC), false},
		{"2026-11-30T10:00:00.5Z", time.Date(2026, 11, 30, 10, 0, 0, 500_000_000, time.UTC), false},
	} {
		asked = 0
		got, err := ParseTime(tc.in, first)
		if err != nil || !got.Equal(tc.want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if (asked > 0) != tc.day {
			t.Errorf("ParseTime(%q) looked up the first day %d times", tc.in, asked)
		}
	}
	for _, bad := range []string{"25:00", "10:61", "10", "tomorrow", "2026-13-01", "10:00Z"} {
		if _, err := ParseTime(bad, first); err == nil {
			t.Errorf("ParseTime(%q) took it", bad)
		}
	}
	noData := errors.New("no data")
	if _, err := ParseTime("10:00", func() (time.Time, error) { return time.Time{}, noData }); !errors.Is(err, noData) {
		t.Errorf("a time of day without a first day: %v", err)
	}
	// compare's windows take the same ends; HH:MM-HH:MM that ends at or
	// before its start ends on the next day.
	from, to, ok, err := ParseWindow("2026-11-30/10:30", first)
	if !ok || err != nil || !from.Equal(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)) || !to.Equal(time.Date(2026, 11, 30, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("ParseWindow(2026-11-30/10:30) = %v, %v, %v, %v", from, to, ok, err)
	}
	from, to, ok, err = ParseWindow("23:00-01:00", first)
	if !ok || err != nil || !from.Equal(time.Date(2026, 11, 30, 23, 0, 0, 0, time.UTC)) || !to.Equal(time.Date(2026, 12, 1, 1, 0, 0, 0, time.UTC)) {
		t.Errorf("ParseWindow(23:00-01:00) = %v, %v, %v, %v", from, to, ok, err)
	}
	if _, _, ok, err := ParseWindow("10:30/10:00", first); !ok || err == nil || !strings.Contains(err.Error(), "ends before it starts") {
		t.Errorf("ParseWindow(10:30/10:00): %v, %v", ok, err)
	}
}
