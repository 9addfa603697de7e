package scan

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
)

// Times in the native formats are RFC 3339 strings with any fractional
// precision and a zone, or JSON numbers (or numeric strings) of Unix epoch
// seconds. Both are converted exactly to Unix nanoseconds: an epoch number is
// split at its decimal point rather than going through float64, which would
// lose a quarter of a microsecond at today's epoch.

// Plausible wall-clock range: a time outside it is almost always a unit
// mistake (milliseconds or nanoseconds given as seconds).
var (
	MinEpochSec int64 = 946684800  // 2000-01-01
	MaxEpochSec int64 = 4102444800 // 2100-01-01
)

var (
	ErrTimeSyntax = errors.New("not an RFC 3339 time or Unix epoch seconds")
	ErrTimeRange  = errors.New("outside 2000-01-01..2100-01-01 (is it milliseconds, not seconds?)")
	// ErrNoZone rejects a time without a zone where the reader takes
	// none; ErrNoZoneGiven one where the user may give it (--timezone).
	ErrNoZone      = errors.New("time has no zone (add Z or an offset like +01:00)")
	ErrNoZoneGiven = errors.New("time has no zone, and none was given: name the zone it was logged in with --timezone [TIER=]ZONE (an IANA name such as Europe/Paris, or an offset such as +01:00 or UTC)")
)

// A reader that takes the user's zone (record.Zone, --timezone) reads a
// time logged without one (LiteLLM's "2025-01-24 09:20:46.847371") as
// wall-clock time in it: a nil *record.Zone, or one with a nil Loc,
// rejects such a time with ErrNoZoneGiven. A reader that takes no zone
// passes noZone and rejects it with ErrNoZone.
var noZone = &record.Zone{}

// parseTimeValueIn converts a JSON time value to Unix nanoseconds. It
// returns ok=false for null (the field is absent).
func parseTimeValueIn(v Value, z *record.Zone) (ns int64, ok bool, err error) {
	switch v.Kind {
	case Null:
		return 0, false, nil
	case Number:
		ns, err = ParseEpochSeconds(v.Raw)
		return ns, err == nil, err
	case String:
		if v.Escaped {
			b, _ := Unquote(v.Raw, true)
			return ParseTimeTextIn(b, z)
		}
		return ParseTimeTextIn(v.Raw, z)
	}
	return 0, false, ErrTimeSyntax
}

// ParseTimeText parses an RFC 3339 time or epoch seconds; a time without
// a zone is rejected (ErrNoZone).
func ParseTimeText(b []byte) (int64, bool, error) { return ParseTimeTextIn(b, noZone) }

// ParseTimeTextIn is ParseTimeText reading a time without a zone in z's
// (see record.Zone).
func ParseTimeTextIn(b []byte, z *record.Zone) (int64, bool, error) {
	if len(b) == 0 {
		return 0, false, nil
	}
	if c := b[0]; '0' <= c && c <= '9' && len(b) >= 5 && b[4] == '-' {
		ns, err := ParseRFC3339In(b, z)
		return ns, err == nil, err
	}
	ns, err := ParseEpochSeconds(b)
	return ns, err == nil, err
}

// ParseEpochSeconds parses a decimal number of seconds exactly to nanoseconds
// (digits past the ninth decimal are truncated). Exponent forms fall back to
// float64.
func ParseEpochSeconds(b []byte) (int64, error) {
	var sec, frac int64
	i := 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		sec = sec*10 + int64(b[i]-'0')
		if sec > MaxEpochSec {
			return 0, ErrTimeRange
		}
	}
	if i == 0 {
		if len(b) > 0 && b[0] == '-' {
			return 0, ErrTimeRange
		}
		return 0, ErrTimeSyntax
	}
	if i < len(b) && b[i] == '.' {
		var ok bool
		if frac, i, ok = fraction(b, i+1); !ok {
			return 0, ErrTimeSyntax
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) {
			return 0, ErrTimeSyntax
		}
		if f < float64(MinEpochSec) || f > float64(MaxEpochSec) {
			return 0, ErrTimeRange
		}
		return int64(math.Round(f * 1e9)), nil
	}
	if i != len(b) {
		return 0, ErrTimeSyntax
	}
	if sec < MinEpochSec {
		return 0, ErrTimeRange
	}
	return sec*1e9 + frac, nil
}

// ParseRFC3339 parses YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM) without
// allocating. 't' and ' ' are accepted for 'T', and 'z' for 'Z'. A time
// without a zone is rejected (ErrNoZone).
func ParseRFC3339(b []byte) (int64, error) { return ParseRFC3339In(b, noZone) }

// ParseRFC3339In is ParseRFC3339 reading a time without a zone as wall-clock
// time in z's zone (see record.Zone). A wall time that a change of
// offset skips or repeats is read as Go's time.Date reads it: in
// Europe/Paris, 02:30 of the night clocks go forward reads as 01:30 UTC (the
// offset before the change), and 02:30 of the night they go back, which
// happens twice, as 01:30 UTC too (the second time, after the change).
func ParseRFC3339In(b []byte, z *record.Zone) (int64, error) {
	if len(b) < 19 {
		return 0, ErrTimeSyntax
	}
	num := func(s []byte) (int, bool) { // two digits
		x, y := uint(s[0])-'0', uint(s[1])-'0'
		return int(x*10 + y), x < 10 && y < 10
	}
	cent, ok0 := num(b[0:2])
	yy, ok1 := num(b[2:4])
	year := cent*100 + yy
	month, ok2 := num(b[5:7])
	day, ok3 := num(b[8:10])
	hour, ok4 := num(b[11:13])
	min, ok5 := num(b[14:16])
	sec, ok6 := num(b[17:19])
	if !(ok0 && ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || b[4] != '-' || b[7] != '-' ||
		(b[10] != 'T' && b[10] != 't' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return 0, ErrTimeSyntax
	}
	if month < 1 || month > 12 || day < 1 || day > DaysIn(month, year) || hour > 23 || min > 59 || sec > 60 {
		return 0, ErrTimeSyntax
	}
	i := 19
	var frac int64
	if i < len(b) && b[i] == '.' {
		var ok bool
		if frac, i, ok = fraction(b, i+1); !ok {
			return 0, ErrTimeSyntax
		}
	}
	if i >= len(b) {
		return wallTime(z, year, month, day, hour, min, sec, frac)
	}
	var offset int
	switch b[i] {
	case 'Z', 'z':
		i++
	case '+', '-':
		if len(b)-i != 6 || b[i+3] != ':' {
			return 0, ErrTimeSyntax
		}
		oh, ok1 := num(b[i+1 : i+3])
		om, ok2 := num(b[i+4 : i+6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, ErrTimeSyntax
		}
		offset = (oh*60 + om) * 60
		if b[i] == '-' {
			offset = -offset
		}
		i += 6
	default:
		return 0, ErrTimeSyntax
	}
	if i != len(b) {
		return 0, ErrTimeSyntax
	}
	if sec == 60 { // a leap second is read as the first instant of the next minute
		sec = 59
		frac = 1e9 - 1
	}
	days := DaysFromCivil(year, month, day)
	unix := days*86400 + int64(hour*3600+min*60+sec) - int64(offset)
	if unix < MinEpochSec || unix > MaxEpochSec {
		return 0, ErrTimeRange
	}
	return unix*1e9 + frac, nil
}

// wallTime is the instant of a wall-clock time in z's zone.
func wallTime(z *record.Zone, year, month, day, hour, min, sec int, frac int64) (int64, error) {
	if z == noZone {
		return 0, ErrNoZone
	}
	if z == nil || z.Loc == nil {
		return 0, ErrNoZoneGiven
	}
	if sec == 60 {
		sec, frac = 59, 1e9-1
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, int(frac), z.Loc)
	if u := t.Unix(); u < MinEpochSec || u > MaxEpochSec {
		return 0, ErrTimeRange
	}
	return t.UnixNano(), nil
}

// fraction reads the digits of a decimal fraction starting at b[i] as
// nanoseconds (digits past the ninth are truncated); ok is false without a
// digit.
func fraction(b []byte, i int) (ns int64, next int, ok bool) {
	start := i
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if i-start < 9 {
			ns = ns*10 + int64(b[i]-'0')
		}
	}
	return ns * pow10[max(0, 9-(i-start))], i, i > start
}

var pow10 = [10]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

func DaysIn(month, year int) int {
	if month == 2 {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 31 - (month-1)%7%2
}

// DaysFromCivil is Howard Hinnant's days_from_civil: days since 1970-01-01.
func DaysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// FormatNS renders Unix nanoseconds for messages.
func FormatNS(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }
