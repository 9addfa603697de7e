package formats

import (
	"math"

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
//
// The first schema of profile_export.jsonl (AIPerf's main branch from
// 2025-10-03, its examples/artifacts/run1 still, before #325 merged on
// 2025-10-09) is told by its shape: metadata.timestamp_ns (the wall
// request start, time.time_ns()) instead of request_start_ns, credit_phase
// instead of benchmark_phase, and no end instant. Its End is the
// max_response_timestamp metric (the last response's wall time, in its
// unit), else Start + request_latency; a failed request, which has
// neither, keeps its Start and error without an End.

const formatAIPerf = "aiperf"

func init() {
	record.RegisterLine(record.Client, formatAIPerf, sniffAIPerf, func() record.LineParser[record.ClientRow] { return &aiperfParser{} })
}

// sniffAIPerf accepts a line whose top-level members include a "metadata"
// object holding request_start_ns (timestamp_ns, first schema) and then "metrics": the export records,
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
					if string(k) == "request_start_ns" || string(k) == "timestamp_ns" {
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
	var firstSchemaStart, lastResponse int64 // metadata.timestamp_ns, metrics.max_response_timestamp
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
				case "timestamp_ns":
					return lgEpochField("metadata.timestamp_ns", v, 1, &firstSchemaStart)
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
				case "max_response_timestamp":
					return aiperfInstant(name, v, &lastResponse)
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
	case r.Start == 0 && firstSchemaStart != 0: // the first schema: no end instant
		r.Start = firstSchemaStart
		switch {
		case lastResponse != 0:
			r.End = lastResponse
		case e2e != nil:
			r.End = r.Start + *e2e
		}
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
		return record.FieldErrorf(field, record.ErrBadValue, "unknown time unit %q", unit)
	}
	return lgDurationField(field, value, scale, dst)
}

// aiperfInstant reads a MetricValue that is a wall-clock epoch time in
// its unit (max_response_timestamp, in "ns").
func aiperfInstant(field string, v scan.Value, dst *int64) error {
	value, unit, err := aiperfMetric(field, v)
	if err != nil || value.Kind == 0 || value.Kind == scan.Null {
		return err
	}
	scale, ok := lgUnitScale(string(unit))
	if !ok {
		return record.FieldErrorf(field, record.ErrBadValue, "unknown time unit %q", unit)
	}
	return lgEpochField(field, value, scale, dst)
}

func aiperfCount(field string, v scan.Value, dst **int32) error {
	value, _, err := aiperfMetric(field, v)
	if err != nil || value.Kind == 0 {
		return err
	}
	return scan.Count32(field, value, dst)
}
