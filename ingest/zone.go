package ingest

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones where the system has no zoneinfo (a scratch container)

	"github.com/infertrace/infertrace/ingest/record"
)

// Times logged without a zone (LiteLLM's "2025-01-24 09:20:46.847371", a
// native line's "2026-11-30T10:00:00.25") name no instant. Ingest never
// guesses one: such a time is read in the zone the user gives for its
// tier (Options.TimeZones, --timezone [TIER=]ZONE), else in its format's
// documented default (record.Format.DefaultZone: the jsonl mappings' time
// layouts, UTC), else the line is rejected, saying to give --timezone.
// The manifest states, per file, the zone applied (FileStats.TimeZone).

// ParseTimeZone reads one --timezone value, [TIER=]ZONE: the tier it is
// for ("" for every tier) and the zone. ZONE is an IANA name
// (Europe/Paris, America/New_York, UTC) or a fixed offset from UTC
// (+01:00, -0530, +09, Z).
func ParseTimeZone(spec string) (Tier, *record.Zone, error) {
	var tier Tier
	zone := spec
	if t, z, ok := strings.Cut(spec, "="); ok {
		tier, zone = Tier(t), z
		if !validTier(tier) {
			return "", nil, fmt.Errorf("--timezone %s: unknown tier %q (want client, gateway or server, or no TIER= for all)", spec, t)
		}
	}
	loc, err := LoadZone(zone)
	if err != nil {
		return "", nil, fmt.Errorf("--timezone %s: %w", spec, err)
	}
	return tier, &record.Zone{Name: zone, Loc: loc}, nil
}

func validTier(t Tier) bool {
	for _, x := range Tiers {
		if x == t {
			return true
		}
	}
	return false
}

// LoadZone returns the zone named by an IANA name or a fixed offset
// (+01:00, +0100, +01, -05:30, Z).
func LoadZone(name string) (*time.Location, error) {
	if name == "" {
		return nil, fmt.Errorf("no zone: want an IANA name such as Europe/Paris, or an offset such as +01:00")
	}
	if name == "Z" || name == "z" {
		return time.UTC, nil
	}
	if c := name[0]; c == '+' || c == '-' {
		off, ok := parseOffset(name[1:])
		if !ok {
			return nil, fmt.Errorf("bad offset %q: want ±HH:MM, ±HHMM or ±HH, at most 14 hours", name)
		}
		if c == '-' {
			off = -off
		}
		return time.FixedZone(name, off), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown zone %q: want an IANA name such as Europe/Paris, or an offset such as +01:00", name)
	}
	return loc, nil
}

// parseOffset reads HH:MM, HHMM or HH as seconds.
func parseOffset(s string) (int, bool) {
	hh, mm := s, "00"
	switch {
	case len(s) == 5 && s[2] == ':':
		hh, mm = s[:2], s[3:]
	case len(s) == 4:
		hh, mm = s[:2], s[2:]
	case len(s) != 2:
		return 0, false
	}
	h, err1 := strconv.ParseUint(hh, 10, 8)
	m, err2 := strconv.ParseUint(mm, 10, 8)
	if err1 != nil || err2 != nil || h > 14 || m > 59 || h == 14 && m > 0 {
		return 0, false
	}
	return int(h)*3600 + int(m)*60, true
}

// timeZones parses Options.TimeZones into the zone of each tier; a zone
// for every tier is overridden by one for a tier, whatever their order;
// two for one tier are an error.
func timeZones(specs []string) (map[Tier]*record.Zone, error) {
	m := map[Tier]*record.Zone{}
	given := map[Tier]string{}
	for _, spec := range specs {
		t, z, err := ParseTimeZone(spec)
		if err != nil {
			return nil, err
		}
		if prev, ok := given[t]; ok {
			return nil, fmt.Errorf("--timezone %s and --timezone %s: two zones for %s", prev, spec, tierWord(t))
		}
		given[t] = spec
		m[t] = z
	}
	if all, ok := m[""]; ok {
		for _, t := range Tiers {
			if m[t] == nil {
				m[t] = all
			}
		}
		delete(m, "")
	}
	return m, nil
}

func tierWord(t Tier) string {
	if t == "" {
		return "every tier"
	}
	return "the " + string(t) + " tier"
}

// setZone sets the zone of s's times logged without one, and the
// manifest's statement of it, once its format is known.
func setZone(s *source, zones map[Tier]*record.Zone) {
	switch z := zones[s.stats.Tier]; {
	case z != nil:
		s.zone = z
		s.stats.TimeZone = z.Name + " (--timezone)"
	case s.format != nil && s.format.DefaultZone != "":
		loc, err := LoadZone(s.format.DefaultZone)
		if err != nil { // a registration's mistake
			panic("ingest: format " + s.format.Name + ": default zone: " + err.Error())
		}
		s.zone = &record.Zone{Name: s.format.DefaultZone, Loc: loc, Default: true}
		s.stats.TimeZone = s.format.DefaultZone + " (" + s.format.Name + " default)"
	}
}
