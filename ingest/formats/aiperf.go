package formats

import (
	"bytes"
	"errors"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// AIPerf (ai-dynamo/aiperf) writes profile_export.jsonl: one record per
// request and line, a MetricRecordInfo (src/aiperf/common/models/
// record_models.py):
//
//	{"metadata":{"session_num":45,"x_request_id":"7609a2e7-…","x_correlation_id":"…",
//	   "request_start_ns":1759813207532900363,"request_ack_ns":…,"request_end_ns":1759813207838764604,
//	   "worker_id":"…","benchmark_phase":"profiling","was_cancelled":false,…},
//	 "metrics":{"time_to_first_token":{"value":255.886568,"unit":"ms"},
//	   "request_latency":{"value":297.525228,"unit":"ms"},"input_sequence_length":{"value":550,"unit":"tokens"},
//	   "output_sequence_length":{"value":9,"unit":"tokens"},…},
//	 "error":null | {"code":499,"type":"RequestCancellationError","message":"…"}}
//
// What a row gets, all on the load generator's host:
//   - RequestID: metadata.x_request_id, which AIPerf sends as the
//     X-Request-ID header, so it joins the gateway's and server's records.
//   - Start, End: metadata.request_start_ns and request_end_ns, wall-clock
//     epoch nanoseconds (time.time_ns()); both are required.
//   - TTFTNS, E2ENS: the time_to_first_token (older AIPerf: ttft) and
//     request_latency metrics, which AIPerf measures on perf_counter_ns and
//     exports in the unit it names ("ns", "us", "ms", "s").
//   - FirstToken: Start + TTFT, an instant derived from the wall start and
//     the monotonic TTFT of the same host (AIPerf logs no first-token
//     instant). Streamed is true when there is a TTFT: AIPerf computes it
//     only for streamed responses.
//   - PromptTokens: input_sequence_length (error_isl for failed requests);
//     OutputTokens: output_sequence_length, else output_token_count.
//   - Status: error.code when it is an HTTP-like code (100..999); Error:
//     error.type (the exception class), never the message.
//
// Warm-up records (benchmark_phase "warmup") are real requests that the
// gateway and server saw too, so they are kept.

const formatAIPerf = "aiperf"

func init() {
	record.RegisterLine(record.Client, formatAIPerf, sniffAIPerf, func() record.LineParser[record.ClientRow] { return &aiperfParser{} })
}

// sniffAIPerf accepts a line whose top-level members include a "metadata"
// object holding request_start_ns and then "metrics": the export records,
// not the raw records (payload, responses) AIPerf can also write.
func sniffAIPerf(line []byte) bool {
	if lgNativeLike(line) {
		return false
	}
	var start, metrics bool
	lgSniffMembers(line, func(key []byte, v scan.Value, complete bool) bool {
		switch string(key) {
		case "metadata":
			if complete && v.Kind == scan.ObjectKind {
				lgSniffMembers(v.Raw, func(k []byte, _ scan.Value, _ bool) bool {
					if string(k) == "request_start_ns" {
						start = true
					}
					return true
				})
			}
		case "metrics":
			metrics = true
		}
		return !(start && metrics)
	})
	return start && metrics
}

type aiperfParser struct{ labels scan.Labels }

func (p *aiperfParser) ParseLine(line []byte, out *record.RowQueue[record.ClientRow]) error {
	var r record.ClientRow
	var ttft, e2e, osl, tokenCount *int64
	var isl, errISL *int32
	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "metadata":
			return lgMembers("metadata", v, func(key []byte, v scan.Value) error {
				switch string(key) {
				case "x_request_id":
					return scan.Text("metadata.x_request_id", v, &r.RequestID)
				case "request_start_ns":
					return lgEpochField("metadata.request_start_ns", v, 1, &r.Start)
				case "request_end_ns":
					return lgEpochField("metadata.request_end_ns", v, 1, &r.End)
				}
				return nil
			})
		case "metrics":
			return lgMembers("metrics", v, func(key []byte, v scan.Value) error {
				name := "metrics." + string(key)
				switch string(key) {
				case "time_to_first_token", "ttft":
					return aiperfDuration(name, v, &ttft)
				case "request_latency":
					return aiperfDuration(name, v, &e2e)
				case "input_sequence_length":
					return aiperfCount(name, v, &isl)
				case "error_isl":
					return aiperfCount(name, v, &errISL)
				case "output_sequence_length", "output_token_count":
					var n *int32
					if err := aiperfCount(name, v, &n); err != nil || n == nil {
						return err
					}
					c := int64(*n)
					if string(key) == "output_sequence_length" {
						osl = &c
					} else {
						tokenCount = &c
					}
				}
				return nil
			})
		case "error":
			if v.Kind == scan.Null {
				return nil
			}
			r.Error = "error" // an error object says the request failed, whatever it holds
			return lgMembers("error", v, func(key []byte, v scan.Value) error {
				switch string(key) {
				case "code":
					n, ok, err := scan.Integer("error.code", v, math.MinInt32, math.MaxInt32)
					if ok && n >= 100 && n <= 999 {
						r.Status = int32(n)
					}
					return err
				case "type":
					return p.labels.Label("error.type", v, &r.Error)
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch {
	case r.Start == 0:
		return record.Missing("metadata.request_start_ns")
	case r.End == 0:
		return record.Missing("metadata.request_end_ns")
	}
	r.TTFTNS, r.E2ENS = ttft, e2e
	if ttft != nil {
		r.FirstToken = r.Start + *ttft
		r.Streamed = record.BoolPtr(true)
	}
	r.PromptTokens = isl
	if r.PromptTokens == nil {
		r.PromptTokens = errISL
	}
	if osl == nil {
		osl = tokenCount
	}
	if osl != nil {
		r.OutputTokens = record.Int32Ptr(int32(*osl))
	}
	r.Format = formatAIPerf
	*out.Next() = r
	return nil
}

// aiperfMetric reads a MetricValue, {"value":…,"unit":"…"}.
func aiperfMetric(field string, v scan.Value) (value scan.Value, unit []byte, err error) {
	err = lgMembers(field, v, func(key []byte, v scan.Value) error {
		switch string(key) {
		case "value":
			value = v
		case "unit":
			b, _, err := scan.TextBytes(field+".unit", v)
			unit = b
			return err
		}
		return nil
	})
	return value, unit, err
}

func aiperfDuration(field string, v scan.Value, dst **int64) error {
	value, unit, err := aiperfMetric(field, v)
	if err != nil || value.Kind == 0 || value.Kind == scan.Null {
		return err
	}
	scale, ok := lgUnitScale(string(unit))
	if !ok {
		return record.FieldErrorf(field, record.ErrBadValue, "unknown time unit %.20q", unit)
	}
	return lgDurationField(field, value, scale, dst)
}

func aiperfCount(field string, v scan.Value, dst **int32) error {
	value, _, err := aiperfMetric(field, v)
	if err != nil || value.Kind == 0 {
		return err
	}
	return scan.Count32(field, value, dst)
}

// Helpers shared by the load-generator formats (aiperf, genai-perf,
// guidellm, vllm-bench, k6) and the mapped jsonl format.

// lgUnitScale gives the nanoseconds in one unit of time.
func lgUnitScale(unit string) (int64, bool) {
	switch unit {
	case "ns":
		return 1, true
	case "us", "µs", "μs":
		return 1e3, true
	case "ms":
		return 1e6, true
	case "s", "sec":
		return 1e9, true
	}
	return 0, false
}

var (
	errLgNegative = errors.New("negative")
	errLgRange    = errors.New("too large")
	errLgSyntax   = errors.New("not a decimal number")
)

// lgScaledNS converts a decimal number of units (perUnit nanoseconds each)
// to nanoseconds, exactly and rounded to the nearest nanosecond, without
// going through float64. Exponent forms (2e-05) fall back to float64.
func lgScaledNS(b []byte, perUnit int64) (int64, error) {
	if len(b) == 0 {
		return 0, errLgSyntax
	}
	if b[0] == '-' {
		if f, err := strconv.ParseFloat(string(b), 64); err == nil && f == 0 {
			return 0, nil // -0.0
		}
		return 0, errLgNegative
	}
	if bytes.ContainsAny(b, "eE") {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, errLgSyntax
		}
		if f < 0 {
			return 0, errLgNegative
		}
		v := math.Round(f * float64(perUnit))
		if v >= math.MaxInt64 {
			return 0, errLgRange
		}
		return int64(v), nil
	}
	i := 0
	var ip uint64
	limit := uint64(math.MaxInt64 / perUnit)
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		ip = ip*10 + uint64(b[i]-'0')
		if ip > limit {
			return 0, errLgRange
		}
	}
	if i == 0 {
		return 0, errLgSyntax
	}
	ns := ip * uint64(perUnit)
	if i < len(b) && b[i] == '.' {
		i++
		var frac, den uint64 = 0, 1
		n := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if n < 18 { // further digits are far below a nanosecond
				frac = frac*10 + uint64(b[i]-'0')
				den *= 10
			}
			n++
		}
		if n == 0 {
			return 0, errLgSyntax
		}
		hi, lo := bits.Mul64(frac, uint64(perUnit))
		q, rem := bits.Div64(hi, lo, den) // frac < den, so hi < den
		if rem >= den-rem {
			q++
		}
		ns += q
		if ns > math.MaxInt64 {
			return 0, errLgRange
		}
	}
	if i != len(b) {
		return 0, errLgSyntax
	}
	return int64(ns), nil
}

// lgDurationField reads a duration in units of perUnit nanoseconds (a JSON
// number or a numeric string; null, "" and "-" leave dst nil).
func lgDurationField(field string, v scan.Value, perUnit int64, dst **int64) error {
	b, ok, err := scan.TextBytes(field, v)
	if !ok || err != nil {
		return err
	}
	ns, perr := lgScaledNS(b, perUnit)
	if perr != nil {
		return record.FieldErrorf(field, record.ErrBadValue, "%.40q: %v", b, perr)
	}
	*dst = record.NSPtr(ns)
	return nil
}

// lgEpochField reads a Unix epoch time in units of perUnit nanoseconds
// (1 for epoch ns) into dst, checking it is a plausible wall-clock time.
func lgEpochField(field string, v scan.Value, perUnit int64, dst *int64) error {
	b, ok, err := scan.TextBytes(field, v)
	if !ok || err != nil {
		return err
	}
	ns, perr := lgScaledNS(b, perUnit)
	if perr != nil {
		return record.FieldErrorf(field, record.ErrBadTime, "%.40q: %v", b, perr)
	}
	if ns < scan.MinEpochSec*1e9 || ns > scan.MaxEpochSec*1e9 {
		return record.FieldErrorf(field, record.ErrBadTime, "%.40q: outside 2000-01-01..2100-01-01 (is the unit right?)", b)
	}
	*dst = ns
	return nil
}

// lgMembers walks a member that must be an object (or null).
func lgMembers(field string, v scan.Value, fn func(key []byte, v scan.Value) error) error {
	switch v.Kind {
	case scan.Null:
		return nil
	case scan.ObjectKind:
		return scan.Object(v.Raw, func(k []byte, esc bool, v scan.Value) error { return fn(scan.MemberKey(k, esc), v) })
	}
	return record.FieldErrorf(field, record.ErrBadValue, "want an object, got %s", scan.KindName(v.Kind))
}

// lgSniffMembers walks the top-level members of a JSON object that may be
// cut short (a sniffed first line is at most 64 KiB): fn gets each key and
// its value, complete=false for a value cut off, and returns false to stop.
func lgSniffMembers(data []byte, fn func(key []byte, v scan.Value, complete bool) bool) {
	i := scan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return
	}
	i = scan.SkipSpace(data, i+1)
	for i < len(data) && data[i] == '"' {
		kend, kesc, err := scan.StringAt(data, i+1)
		if err != nil {
			return
		}
		key := scan.MemberKey(data[i+1:kend], kesc)
		i = scan.SkipSpace(data, kend+1)
		if i >= len(data) || data[i] != ':' {
			return
		}
		i = scan.SkipSpace(data, i+1)
		v, next, err := scan.ValueAt(data, i)
		if err != nil {
			fn(key, scan.Value{}, false)
			return
		}
		if !fn(key, v, true) {
			return
		}
		i = scan.SkipSpace(data, next)
		if i >= len(data) || data[i] != ',' {
			return
		}
		i = scan.SkipSpace(data, i+1)
	}
}

// lgNativeLike says whether a line has the native client record's
// request_id and start members, which no load generator writes at the top
// level: such a line is left to the native sniffer.
func lgNativeLike(line []byte) bool {
	var id, start bool
	lgSniffMembers(line, func(key []byte, _ scan.Value, _ bool) bool {
		switch string(key) {
		case "request_id":
			id = true
		case "start":
			start = true
		}
		return !(id && start)
	})
	return id && start
}

// lgErrorLabel turns an error text (an exception message, a traceback) into
// a short label: its last non-empty line, cut to 120 bytes.
func lgErrorLabel(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = bytes.TrimSpace(b[i+1:])
	}
	if len(b) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		b = b[:cut]
	}
	return bytes.ToValidUTF8(b, []byte("\uFFFD"))
}
