package scan

import (
	"errors"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
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

// TestParseRFC3339InZone reads times without a zone in the zone given, each
// instant computed by hand as Unix seconds, and rejects them without one.
func TestParseRFC3339InZone(t *testing.T) {
	t.Parallel()
	zone := func(name string) *record.Zone {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		return &record.Zone{Name: name, Loc: loc}
	}
	paris, newYork := zone("Europe/Paris"), zone("America/New_York")
	kolkata := &record.Zone{Name: "+05:30", Loc: time.FixedZone("+05:30", 5*3600+30*60)}
	for _, tc := range []struct {
		in   string
		z    *record.Zone
		want int64 // ns
	}{
		// 2025-01-01 is 1735689600; +23 days is 1737676800; CET is +01:00, so
		// 09:20:46 there is 08:20:46Z = +30046 s.
		{"2025-01-24 09:20:46.847371", paris, 1737706846_847371000},
		// 2026-01-01 is 1767225600; +181 days (to July 1) is 1782864000;
		// EDT is -04:00, so noon there is 16:00Z = +57600 s.
		{"2026-07-01T12:00:00", newYork, 1782921600_000000000},
		// 2026-11-30T10:00Z is 1796032800; 10:00 at +05:30 is 5.5 h earlier.
		{"2026-11-30 10:00:00", kolkata, 1796032800_000000000 - 19800_000000000},
		// Clocks go forward at 02:00 on 2026-03-29 (day 87 of the year:
		// 1774742400): 02:30 is skipped and reads at +01:00, 01:30Z.
		{"2026-03-29 02:30:00", paris, 1774742400_000000000 + 5400_000000000},
		// Back at 03:00 on 2026-10-25 (day 297: 1792886400): 02:30 happens
		// at +02:00 (00:30Z) and at +01:00 (01:30Z); the second is read.
		{"2026-10-25 02:30:00", paris, 1792886400_000000000 + 5400_000000000},
		// A time with a zone keeps it, whatever zone is given.
		{"2026-11-30T10:00:00Z", paris, 1796032800_000000000},
		{"2026-11-30T11:00:00+01:00", newYork, 1796032800_000000000},
	} {
		got, err := ParseRFC3339In([]byte(tc.in), tc.z)
		if err != nil || got != tc.want {
			t.Errorf("%q in %s: got %s, %v; want %s", tc.in, tc.z.Name, FormatNS(got), err, FormatNS(tc.want))
		}
		ok, b, err := ParseTimeTextIn([]byte(tc.in), tc.z)
		if err != nil || !b || ok != tc.want {
			t.Errorf("ParseTimeTextIn(%q, %s): got %d, %v", tc.in, tc.z.Name, ok, err)
		}
	}
	for _, z := range []*record.Zone{nil, {Name: "none"}} {
		if _, err := ParseRFC3339In([]byte("2025-01-24 09:20:46.847371"), z); !errors.Is(err, ErrNoZoneGiven) {
			t.Errorf("no zone given: got %v, want ErrNoZoneGiven", err)
		}
	}
	if _, err := ParseRFC3339([]byte("2025-01-24 09:20:46.847371")); !errors.Is(err, ErrNoZone) {
		t.Errorf("a reader taking no zone: got %v, want ErrNoZone", err)
	}
	if _, err := ParseRFC3339In([]byte("1999-12-31 23:30:00"), kolkata); !errors.Is(err, ErrTimeRange) {
		t.Errorf("out of range in the zone: got %v, want ErrTimeRange", err)
	}
}

// FuzzRFC3339In checks times without a zone read in a zone against the
// standard library's reading of them in that zone.
func FuzzRFC3339In(f *testing.F) {
	for _, s := range []string{"2025-01-24T09:20:46.847371", "2026-03-29T02:30:00", "2026-10-25T02:30:00.5"} {
		f.Add(s)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		f.Fatal(err)
	}
	z := &record.Zone{Name: "Europe/Paris", Loc: paris}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseRFC3339In([]byte(s), z)
		ref, rerr := time.ParseInLocation("2006-01-02T15:04:05.999999999", s, paris)
		if err != nil || rerr != nil {
			return // leap seconds, range, ' ' for 'T', and zones differ on purpose
		}
		if got != ref.UnixNano() {
			t.Errorf("%q: got %d, time.ParseInLocation %d", s, got, ref.UnixNano())
		}
	})
}
