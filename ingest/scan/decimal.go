package scan

import (
	"errors"
	"math"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
)

var errNotDecimal = errors.New("not a decimal number")

// ParseScaled converts a decimal number to an integer count of 10^-scale of
// its unit, exactly: "8.3" ms with scale 6 is 8300000 ns. Digits past the
// scale are truncated; exponent forms go through float64.
func ParseScaled(b []byte, scale int) (int64, error) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var n int64
	i, digits := 0, 0
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		if n > (math.MaxInt64-9)/10 {
			return 0, errNotDecimal
		}
		n = n*10 + int64(b[i]-'0')
		digits++
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if frac < scale {
				if n > (math.MaxInt64-9)/10 {
					return 0, errNotDecimal
				}
				n = n*10 + int64(b[i]-'0')
				frac++
			}
			digits++
		}
	}
	if digits == 0 {
		return 0, errNotDecimal
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, errNotDecimal
		}
		f = math.Round(f * math.Pow10(scale))
		if math.Abs(f) > math.MaxInt64/2 {
			return 0, errNotDecimal
		}
		if neg {
			f = -f
		}
		return int64(f), nil
	}
	if i != len(b) {
		return 0, errNotDecimal
	}
	for ; frac < scale; frac++ {
		if n > math.MaxInt64/10 {
			return 0, errNotDecimal
		}
		n *= 10
	}
	if neg {
		n = -n
	}
	return n, nil
}

// Duration reads a duration member given as a number (or a numeric string)
// of 10^-unitScale seconds — 3 for milliseconds, 0 for seconds — and returns
// it in ns. A negative value means "not measured" and reads as absent.
func Duration(field string, v Value, unitScale int) (int64, bool, error) {
	b, ok, err := TextBytes(field, v)
	if !ok || err != nil {
		return 0, false, err
	}
	ns, perr := ParseScaled(b, 9-unitScale)
	if perr != nil {
		return 0, false, record.FieldErrorf(field, record.ErrBadValue, "want a number, got %q", b)
	}
	if ns < 0 {
		// -1 is how several gateways say "not measured" (Kong: not proxied).
		return 0, false, nil
	}
	return ns, true, nil
}
