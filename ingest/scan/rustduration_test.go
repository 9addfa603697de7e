package scan

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
)

func TestRustDuration(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64 // -1: an error
	}{
		{"0ns", 0},
		{"1ns", 1},
		{"812ns", 812},
		{"999ns", 999},
		{"1µs", 1000},
		{"42.6µs", 42600},
		{"42.6us", 42600},
		{"1.001µs", 1001},
		{"999.999µs", 999999},
		{"1ms", 1e6},
		{"351.2048ms", 351204800},
		{"13.106171ms", 13106171},
		{"1.5ms", 1500000},
		{"17.776586ms", 17776586},
		{"1s", 1e9},
		{"2.639712331s", 2639712331},
		{"1.000000001s", 1000000001},
		{"1.1s", 1100000000},
		{"1.12s", 1120000000},
		{"1.123s", 1123000000},
		{"1.1234s", 1123400000},
		{"1.12345s", 1123450000},
		{"1.123456s", 1123456000},
		{"1.1234567s", 1123456700},
		{"1.12345678s", 1123456780},
		{"1.123456789s", 1123456789},
		{"3600.5s", 3600500000000},
		{"1.50s", 1500000000}, // trailing zeros: never printed, but exact
		{"9223372036.854775807s", math.MaxInt64},
		{"9223372036.854775808s", -1},
		{"9223372037s", -1},
		{"99999999999999999999s", -1},
		{"1.1234567891s", -1}, // below a nanosecond
		{"1.0000001ms", -1},
		{"1.0001µs", -1},
		{"1.5ns", -1},
		{"", -1},
		{"s", -1},
		{"ms", -1},
		{".5s", -1},
		{"1.s", -1},
		{"1", -1},
		{"-1s", -1},
		{"+1s", -1},
		{" 1s", -1},
		{"1 s", -1},
		{"1e3ns", -1},
		{"1m", -1},
		{"1min", -1},
		{"1h", -1},
		{"1μs", -1}, // U+03BC, not what Rust prints
		{"1.2.3s", -1},
		{"1,5s", -1},
		{"0x10ns", -1},
		{"NaNs", -1},
	} {
		got, err := rustDurationNS([]byte(c.in))
		if c.want < 0 {
			if err == nil {
				t.Errorf("%q: got %d, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}

// The member converter names the field and reports a bad value.
func TestRustDurationField(t *testing.T) {
	t.Parallel()
	_, _, err := RustDurationField("queue_time", Value{Kind: String, Raw: []byte("12 ms")})
	if !errors.Is(err, record.ErrBadValue) || !strings.HasPrefix(err.Error(), "queue_time: ") {
		t.Errorf("got %v", err)
	}
	if _, ok, err := RustDurationField("queue_time", Value{Kind: Null}); ok || err != nil {
		t.Errorf("null: %v %v", ok, err)
	}
	if _, _, err := RustDurationField("queue_time", Value{Kind: Number, Raw: []byte("12")}); !errors.Is(err, record.ErrBadValue) {
		t.Errorf("a number: %v", err)
	}
}

// rustDebug prints a Duration as Rust's Debug impl does (no precision).
func rustDebug(ns int64) string {
	frac := func(whole, rest, div int64) string {
		s := strconv.FormatInt(whole, 10)
		if rest == 0 {
			return s
		}
		digits := ""
		for rest > 0 {
			digits += string(rune('0' + rest/div))
			rest %= div
			div /= 10
		}
		return s + "." + digits
	}
	switch {
	case ns >= 1e9:
		return frac(ns/1e9, ns%1e9, 1e8) + "s"
	case ns >= 1e6:
		return frac(ns/1e6, ns%1e6, 1e5) + "ms"
	case ns >= 1e3:
		return frac(ns/1e3, ns%1e3, 1e2) + "µs"
	}
	return strconv.FormatInt(ns, 10) + "ns"
}

func TestRustDebugRoundTrip(t *testing.T) {
	t.Parallel()
	for _, ns := range []int64{0, 7, 999, 1000, 1001, 42600, 999999, 1e6, 351204800, 1e9 - 1, 1e9, 1000000001, 2639712331, 86400e9 + 1} {
		s := rustDebug(ns)
		got, err := rustDurationNS([]byte(s))
		if err != nil || got != ns {
			t.Errorf("%d printed %q: parsed %d, %v", ns, s, got, err)
		}
	}
}

func FuzzRustDuration(f *testing.F) {
	for _, s := range []string{"0ns", "812ns", "42.6µs", "42.6us", "351.2048ms", "2.639712331s", "1.000000001s", "9223372036.854775807s", "1.5ns", "-1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, err := rustDurationNS([]byte(s))
		if err != nil {
			return
		}
		if ns < 0 {
			t.Fatalf("%q: negative %d", s, ns)
		}
		// Whatever parses is what Debug prints for that value, give or
		// take trailing zeros, "us" for "µs" and leading zeros.
		want := rustDebug(ns)
		norm := strings.Replace(s, "us", "µs", 1)
		if norm != want {
			back, err := rustDurationNS([]byte(want))
			if err != nil || back != ns {
				t.Fatalf("%q = %d ns, printed back %q = %d, %v", s, ns, want, back, err)
			}
		}
		// Cross-check against time.ParseDuration where that is exact.
		if d, err := time.ParseDuration(norm); err == nil && int64(d) != ns && ns < 1<<53 {
			t.Fatalf("%q: %d ns, time.ParseDuration says %d", s, ns, int64(d))
		}
	})
}

func TestDecimalNS(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "0.0", want: 0},
		{in: "2.6398", want: 2639800000},
		{in: "0.3512", want: 351200000},
		{in: "0.35119999999999996", want: 351200000}, // a float artefact rounds to the ns
		{in: "2.2744000000000004", want: 2274400000},
		{in: "3.2e-05", want: 32000},
		{in: "5e-10", want: 1}, // half a ns rounds up
		{in: "4e-10", want: 0},
		{in: "1E3", want: 1000e9},
		{in: "-0.25", want: -250000000},
		{in: "812345.1141", want: 812345114100000},
		{in: "1796032800.123456789", want: 1796032800123456789},
		{in: "9223372036.854775807", want: math.MaxInt64},
		{in: "9223372037", bad: true},
		{in: "1e300", bad: true},
		{in: "1e-300", want: 0},
		{in: "", bad: true},
		{in: ".5", bad: true},
		{in: "1.", bad: true},
		{in: "1e", bad: true},
		{in: "abc", bad: true},
		{in: "1.5s", bad: true},
		{in: "NaN", bad: true},
	} {
		got, err := srvDecimalNS([]byte(c.in))
		if c.bad {
			if err == nil {
				t.Errorf("%q: got %d, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %d, %v; want %d", c.in, got, err, c.want)
		}
	}
}
