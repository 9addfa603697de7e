package formats

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Shared helpers for formats that arrive as OTLP JSON traces (a
// TracesData / ExportTraceServiceRequest object: resourceSpans → scopeSpans
// → spans), decoded with the collector's own pdata rather than by hand. OTLP
// JSON writes 64-bit integers and nanosecond times as decimal strings and
// IDs as hex; pdata accepts both numbers and strings for them.

// unmarshalOTLP decodes one OTLP JSON traces object. Any failure is a syntax
// error; pdata's message is cut before the input excerpt it appends, which
// could hold span attribute text.
func unmarshalOTLP(data []byte) (ptrace.Traces, error) {
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(data)
	if err != nil {
		msg := err.Error()
		if i := strings.Index(msg, ", error found in"); i >= 0 {
			msg = msg[:i]
		}
		return ptrace.Traces{}, fmt.Errorf("%w: not OTLP JSON traces: %s", record.ErrSyntax, msg)
	}
	return td, nil
}

// isOTLPLine reports whether line is a whole JSON object with a top-level
// resourceSpans member, the shape of one line of the collector's file
// exporter. A line of exactly 64 KiB is a first line cut for sniffing: it
// counts when it starts with the resourceSpans member.
func isOTLPLine(line []byte) bool {
	if len(line) >= 64<<10 {
		return startsWithResourceSpans(line)
	}
	found := false
	err := scan.Object(line, func(k []byte, esc bool, _ scan.Value) error {
		if string(scan.MemberKey(k, esc)) == "resourceSpans" {
			found = true
		}
		return nil
	})
	return err == nil && found
}

// startsWithResourceSpans: `{` then, after white space, the member name
// "resourceSpans".
func startsWithResourceSpans(b []byte) bool {
	i := scan.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = scan.SkipSpace(b, i+1)
	return bytes.HasPrefix(b[i:], []byte(`"resourceSpans"`))
}

// attrStr returns a string attribute; ok=false when absent or empty.
func attrStr(m pcommon.Map, key string) (string, bool) {
	v, ok := m.Get(key)
	if !ok || v.Type() != pcommon.ValueTypeStr || v.Str() == "" {
		return "", false
	}
	return v.Str(), true
}

// attrSeconds converts a duration attribute in float seconds (an OTLP
// double; an int or a numeric string is accepted too) to nanoseconds.
// ok=false when absent; an error when it is not a finite number of seconds.
func attrSeconds(m pcommon.Map, key string) (ns int64, ok bool, err error) {
	v, present := m.Get(key)
	if !present {
		return 0, false, nil
	}
	var f float64
	switch v.Type() {
	case pcommon.ValueTypeDouble:
		f = v.Double()
	case pcommon.ValueTypeInt:
		if n := v.Int(); n > math.MaxInt64/1_000_000_000 || n < math.MinInt64/1_000_000_000 {
			return 0, false, record.FieldErrorf(key, record.ErrBadValue, "%d seconds is out of range", n)
		} else {
			return n * 1e9, true, nil
		}
	case pcommon.ValueTypeStr:
		var perr error
		f, perr = strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
		if perr != nil {
			return 0, false, record.FieldErrorf(key, record.ErrBadValue, "want seconds, got %q", v.Str())
		}
	case pcommon.ValueTypeEmpty:
		return 0, false, nil
	default:
		return 0, false, record.FieldErrorf(key, record.ErrBadValue, "want seconds, got %s", strings.ToLower(v.Type().String()))
	}
	ns, ok = secondsToNS(f)
	if !ok {
		return 0, false, record.FieldErrorf(key, record.ErrBadValue, "%v is not a duration in seconds", f)
	}
	return ns, true, nil
}

// attrCount reads a non-negative count attribute (an OTLP int, which JSON
// carries as a string; a whole double or a numeric string is accepted).
func attrCount(m pcommon.Map, key string) (*int32, error) {
	v, present := m.Get(key)
	if !present {
		return nil, nil
	}
	var n int64
	switch v.Type() {
	case pcommon.ValueTypeInt:
		n = v.Int()
	case pcommon.ValueTypeDouble:
		f := v.Double()
		if f != math.Trunc(f) || math.Abs(f) > 1<<62 {
			return nil, record.FieldErrorf(key, record.ErrBadValue, "want a whole number, got %v", f)
		}
		n = int64(f)
	case pcommon.ValueTypeStr:
		var err error
		if n, err = strconv.ParseInt(strings.TrimSpace(v.Str()), 10, 64); err != nil {
			return nil, record.FieldErrorf(key, record.ErrBadValue, "want a whole number, got %q", v.Str())
		}
	case pcommon.ValueTypeEmpty:
		return nil, nil
	default:
		return nil, record.FieldErrorf(key, record.ErrBadValue, "want a whole number, got %s", strings.ToLower(v.Type().String()))
	}
	if n < 0 || n > math.MaxInt32 {
		return nil, record.FieldErrorf(key, record.ErrBadValue, "%d is outside 0..%d", n, math.MaxInt32)
	}
	return record.Int32Ptr(int32(n)), nil
}

// secondsToNS converts float seconds to nanoseconds through the shortest
// decimal that reads back as the same float64 (what Python's repr and the
// collector's JSON encoder print), rounded half away from zero at the ninth
// decimal. So 0.3512 is 351200000 ns exactly, where 0.3512*1e9 in floating
// point is 351200000.00000006. The conversion adds no error of its own; the
// value itself is only as precise as the server's float: a difference of two
// Unix-epoch float times (vLLM's e2e and TTFT) is good to about 0.24 µs today
// (the spacing of float64 near 1.7e9), a monotonic difference (queue,
// prefill, decode) to well under a nanosecond. ok=false for NaN, ±Inf and
// magnitudes whose nanoseconds overflow int64 (about 292 years).
func secondsToNS(f float64) (int64, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 9.2e9 {
		return 0, false
	}
	var buf [64]byte
	s := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	intPart, frac, _ := bytes.Cut(s, []byte{'.'})
	var sec int64
	for _, c := range intPart {
		sec = sec*10 + int64(c-'0')
	}
	var ns int64
	for i := 0; i < 9; i++ {
		ns *= 10
		if i < len(frac) {
			ns += int64(frac[i] - '0')
		}
	}
	if len(frac) > 9 && frac[9] >= '5' { // half or more of a nanosecond: away from zero
		ns++
	}
	total := sec*1e9 + ns
	if neg {
		total = -total
	}
	return total, true
}

// sniffOTLPDocument claims a first line that opens an object with the
// resourceSpans member but does not close it on the same line, such as
// `{"resourceSpans": [` of a pretty-printed document; the sniffer joins a
// lone `{` with the next line, so `{` then `"resourceSpans": [` is one too.
// A document whose first member is not resourceSpans must be named
// (vllm-otlp-json:GLOB).
func sniffOTLPDocument(first []byte) bool {
	return len(first) < 64<<10 && startsWithResourceSpans(first) && !isOTLPLine(first)
}

// checkOTLPObject accepts one JSON object with the top-level member of an
// OTLP signal. Metrics and logs (a collector can write every signal to one
// file) decode to no rows; anything else is not OTLP and is rejected.
func checkOTLPObject(data []byte) error {
	otlp := false
	err := scan.Object(data, func(k []byte, esc bool, _ scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "resourceSpans", "resourceMetrics", "resourceLogs", "resourceProfiles":
			otlp = true
		}
		return nil
	})
	if err == nil && !otlp {
		err = fmt.Errorf("%w: not OTLP JSON: no resourceSpans member", record.ErrSyntax)
	}
	return err
}

// after returns t + d for a known, non-negative duration d, else 0 (NULL).
func after(t int64, d *int64) int64 {
	if d == nil || *d < 0 || *d > math.MaxInt64-t {
		return 0
	}
	return t + *d
}

// plausibleNS checks a Unix-nanosecond time against the range the native
// formats accept.
func plausibleNS(field string, ns uint64) error {
	if ns < uint64(scan.MinEpochSec)*1e9 || ns > uint64(scan.MaxEpochSec)*1e9 {
		return record.FieldErrorf(field, record.ErrBadTime, "%d: %v", ns, scan.ErrTimeRange)
	}
	return nil
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
