package scan

import (
	"errors"
	"math"

	"github.com/infertrace/infertrace/ingest/record"
)

// Duration texts of the server formats, converted exactly to nanoseconds
// with integer arithmetic: a float64 would turn "0.3512" seconds into
// 351199999 ns.

var errRustDuration = errors.New("not a Rust Duration Debug string (like 2.639712331s, 351.2048ms, 42.6µs, 812ns)")

// rustDurationNS parses a Rust core::time::Duration as its Debug impl prints
// it (TGI records its request timings with format!("{d:?}")): an integer
// part, an optional '.' and fraction, and one unit. Debug picks the unit by
// size (s from one second, else ms, µs with U+00B5, ns) and prints the
// fraction without trailing zeros, so a fraction never has more digits than
// the unit has below one nanosecond: 9 for s, 6 for ms, 3 for µs, none for
// ns. "us" is accepted for µs. Anything else (a sign, spaces, an exponent,
// more fraction digits than nanoseconds, a value past 292 years) is an error.
func rustDurationNS(b []byte) (int64, error) {
	var unit int64 // nanoseconds per unit
	var maxFrac int
	switch {
	case len(b) >= 2 && string(b[len(b)-2:]) == "ms":
		unit, maxFrac, b = 1e6, 6, b[:len(b)-2]
	case len(b) >= 3 && string(b[len(b)-3:]) == "µs":
		unit, maxFrac, b = 1e3, 3, b[:len(b)-3]
	case len(b) >= 2 && string(b[len(b)-2:]) == "us":
		unit, maxFrac, b = 1e3, 3, b[:len(b)-2]
	case len(b) >= 2 && string(b[len(b)-2:]) == "ns":
		unit, maxFrac, b = 1, 0, b[:len(b)-2]
	case len(b) >= 1 && b[len(b)-1] == 's':
		unit, maxFrac, b = 1e9, 9, b[:len(b)-1]
	default:
		return 0, errRustDuration
	}
	i := 0
	var whole int64
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		d := int64(b[i] - '0')
		if whole > (math.MaxInt64/unit-d)/10 {
			return 0, errRustDuration
		}
		whole = whole*10 + d
	}
	if i == 0 {
		return 0, errRustDuration
	}
	ns := whole * unit
	if i < len(b) {
		if b[i] != '.' {
			return 0, errRustDuration
		}
		i++
		frac := b[i:]
		if len(frac) == 0 || len(frac) > maxFrac {
			return 0, errRustDuration
		}
		scale := unit
		for _, c := range frac {
			if c < '0' || c > '9' {
				return 0, errRustDuration
			}
			scale /= 10
			ns += int64(c-'0') * scale
		}
		if ns < 0 { // overflow in the last nanoseconds
			return 0, errRustDuration
		}
	}
	return ns, nil
}

// RustDurationField converts a member holding a Rust Duration Debug string; ok is
// false for null, "" and "-".
func RustDurationField(field string, v Value) (ns int64, ok bool, err error) {
	if v.Kind == 0 { // absent
		return 0, false, nil
	}
	if v.Kind != String && v.Kind != Null {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "want a Rust Duration string, got %s", KindName(v.Kind))
	}
	b, ok, err := TextBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	ns, err = rustDurationNS(b)
	if err != nil {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "%q: %v", b, err)
	}
	return ns, true, nil
}

var errSrvDecimal = errors.New("not a decimal number")

// srvDecimalNS converts a decimal number of seconds (a JSON number: optional
// sign, digits, fraction, exponent, as Python's repr writes 3.2e-05) to
// nanoseconds, rounded half away from zero at the nanosecond, without going
// through float64. Values past ±292 years are an error.
func srvDecimalNS(b []byte) (int64, error) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	// mant holds up to 19 significant digits; exp10 is the power of ten
	// that scales it to seconds.
	var mant uint64
	var digits, exp10 int
	seen := false
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		seen = true
		if mant == 0 && b[i] == '0' {
			continue
		}
		if digits < 19 {
			mant = mant*10 + uint64(b[i]-'0')
			digits++
		} else {
			exp10++
		}
	}
	if i < len(b) && b[i] == '.' {
		i++
		n := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			n++
			if mant == 0 && b[i] == '0' {
				exp10--
				continue
			}
			if digits < 19 {
				mant = mant*10 + uint64(b[i]-'0')
				digits++
				exp10--
			}
		}
		if n == 0 {
			return 0, errSrvDecimal
		}
	}
	if !seen {
		return 0, errSrvDecimal
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		e, n := 0, 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
			n++
		}
		if n == 0 {
			return 0, errSrvDecimal
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	if i != len(b) {
		return 0, errSrvDecimal
	}
	if mant == 0 {
		return 0, nil
	}
	k := exp10 + 9 // nanoseconds = mant × 10^k
	var ns uint64
	switch {
	case k >= 0:
		ns = mant
		for ; k > 0; k-- {
			if ns > math.MaxInt64/10 {
				return 0, ErrTimeRange
			}
			ns *= 10
		}
	case k < -19:
		ns = 0
	default:
		p := uint64(1)
		for ; k < 0; k++ {
			p *= 10
		}
		ns = mant / p
		if mant%p >= (p+1)/2 {
			ns++
		}
	}
	if ns > math.MaxInt64 {
		return 0, ErrTimeRange
	}
	if neg {
		return -int64(ns), nil
	}
	return int64(ns), nil
}

// Seconds converts a member holding seconds (a JSON number or a numeric
// string) to nanoseconds; ok is false for null, "" and "-". The result may be
// negative: callers decide what a negative duration means.
func Seconds(field string, v Value) (ns int64, ok bool, err error) {
	if v.Kind == 0 { // absent
		return 0, false, nil
	}
	if v.Kind != Number && v.Kind != String && v.Kind != Null {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "want seconds, got %s", KindName(v.Kind))
	}
	b, ok, err := TextBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	ns, err = srvDecimalNS(b)
	if err != nil {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "%q: want seconds: %v", b, err)
	}
	return ns, true, nil
}

// Between returns end − start as a duration for field, or an error when the
// server logged an end before its start.
func Between(field string, start, end int64) (*int64, error) {
	if end < start {
		return nil, record.FieldErrorf(field, record.ErrBadValue, "negative: ends %d ns before it starts", start-end)
	}
	return record.NSPtr(end - start), nil
}
