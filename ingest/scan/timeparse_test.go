package scan

import (
	"testing"
	"time"
)

func TestParseTimeText(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC).UnixNano()
	for _, tc := range []struct {
		in   string
		want int64 // ns; 0 with wantErr
		err  bool
	}{
		{"2026-11-30T10:00:00Z", base, false},
		{"2026-11-30T10:00:00.1Z", base + 100_000_000, false},
		{"2026-11-30T10:00:00.123456Z", base + 123_456_000, false},
		{"2026-11-30T10:00:00.123456789Z", base + 123_456_789, false},
		{"2026-11-30T10:00:00.1234567891Z", base + 123_456_789, false}, // past ns: truncated
		{"2026-11-30T11:30:00.5+01:30", base + 500_000_000, false},
		{"2026-11-30T05:00:00-05:00", base, false},
		{"2026-11-30 10:00:00z", base, false},
		{"1796032800", base, false}, // a numeric string is epoch seconds
		{"1796032800.091557", base + 91_557_000, false},
		{"1796032800.000000001", base + 1, false},
		{"1.7960328e9", base, false},
		{"2024-02-29T00:00:00Z", time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC).UnixNano(), false},
		{"2025-02-29T00:00:00Z", 0, true},
		{"2026-11-30T10:00:00", 0, true},      // no zone
		{"2026-11-30T10:00:00.Z", 0, true},    // empty fraction
		{"2026-11-30T24:00:00Z", 0, true},     // hour
		{"2026-13-30T10:00:00Z", 0, true},     // month
		{"2026-11-30T10:00:00+0100", 0, true}, // offset without colon
		{"1796032800091", 0, true},            // milliseconds
		{"1796032800091557000", 0, true},      // nanoseconds
		{"-1", 0, true},
		{"1999-12-31T23:59:59Z", 0, true}, // out of range
		{"soon", 0, true},
	} {
		got, ok, err := ParseTimeText([]byte(tc.in))
		if tc.err {
			if err == nil {
				t.Errorf("%q: got %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !ok || got != tc.want {
			t.Errorf("%q: got %d (%s), %v; want %d (%s)", tc.in, got, FormatNS(got), err, tc.want, FormatNS(tc.want))
		}
	}
}

// FuzzRFC3339 checks the hand-written parser against the standard library
// on everything both accept.
func FuzzRFC3339(f *testing.F) {
	for _, s := range []string{"2026-11-30T10:00:00Z", "2026-11-30T10:00:00.123456789+05:30", "2000-02-29T23:59:59.5-00:00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseRFC3339([]byte(s))
		ref, rerr := time.Parse(time.RFC3339Nano, s)
		if err != nil || rerr != nil {
			return // the two differ on purpose on ' ' vs 'T', leap seconds and range
		}
		if got != ref.UnixNano() {
			t.Errorf("%q: got %d, time.Parse %d", s, got, ref.UnixNano())
		}
	})
}
