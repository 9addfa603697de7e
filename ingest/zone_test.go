package ingest

import (
	"strings"
	"testing"
	"time"
)

func TestTimeZones(t *testing.T) {
	t.Parallel()
	// A zone for every tier, given first or last, yields to a tier's own.
	for _, specs := range [][]string{{"+05:30", "gateway=Europe/Paris"}, {"gateway=Europe/Paris", "+05:30"}} {
		m, err := timeZones(specs)
		if err != nil {
			t.Fatal(err)
		}
		if m[Gateway].Name != "Europe/Paris" || m[Client].Name != "+05:30" || m[Server].Name != "+05:30" {
			t.Errorf("%q: got gateway %s, client %s, server %s", specs, m[Gateway].Name, m[Client].Name, m[Server].Name)
		}
		// 12:00 at +05:30 is 06:30 UTC.
		at := time.Date(2026, 11, 30, 12, 0, 0, 0, m[Client].Loc)
		if got := at.UTC().Format("15:04"); got != "06:30" {
			t.Errorf("+05:30: 12:00 there is %s UTC, want 06:30", got)
		}
	}
	for spec, offset := range map[string]int{"+01:00": 3600, "-0530": -19800, "+09": 32400, "Z": 0, "UTC": 0} {
		_, z, err := ParseTimeZone(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, z.Loc).Zone(); off != offset {
			t.Errorf("%s: offset %d, want %d", spec, off, offset)
		}
	}
	for _, tc := range []struct {
		specs []string
		want  string
	}{
		{[]string{"Mars/Olympus"}, `unknown zone "Mars/Olympus"`},
		{[]string{"edge=UTC"}, `unknown tier "edge"`},
		{[]string{"+25:00"}, `bad offset "+25:00"`},
		{[]string{"server="}, "no zone"},
		{[]string{"server=UTC", "server=+01:00"}, "two zones for the server tier"},
		{[]string{"UTC", "Europe/Paris"}, "two zones for every tier"},
	} {
		_, err := timeZones(tc.specs)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.specs, err, tc.want)
		}
	}
}
