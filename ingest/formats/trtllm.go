package formats

import (
	"bytes"
	"io"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The trtllm server format: what TensorRT-LLM's trtllm-serve returns from
// GET /perf_metrics (with return_perf_metrics on), saved to a file: a JSON
// array, drained on every call, so a file that collects several polls holds
// several arrays one after the other (empty ones too):
//
//	[{"request_id": 3, "perf_metrics": {"first_iter": 10, "last_iter": 137,
//	  "timing_metrics": {"server_arrival_time": 812345.102, "arrival_time": 812345.1141,
//	    "first_scheduled_time": 812345.4653, "first_token_time": 812345.6374,
//	    "server_first_token_time": 812345.6402, "last_token_time": 812347.7407}, "kv_cache_metrics": {…}}}]
//
// One input unit is one array element. Times are steady-clock seconds (plus
// the disaggregated-serving clock offset) with no wall anchor, so a row
// holds durations only; every instant column stays NULL:
//
//	QueueNS      first_scheduled_time − arrival_time
//	TTFTNS       first_token_time − arrival_time
//	PrefillNS    first_token_time − first_scheduled_time
//	DecodeNS     last_token_time − first_token_time
//	E2ENS        last_token_time − arrival_time: up to the last token out of
//	             the executor, without detokenization and the HTTP response
//	EngineRequestID  request_id, the executor's integer ID
//
// RequestID stays NULL: the executor numbers requests itself and logs
// nothing the gateway saw, so these rows join to gateway records by
// neither ID nor time. No model, token counts, finish reason or status.
// A file that starts with an empty array, or an array on a line of its own,
// is not recognised from its first line: name the format (trtllm:GLOB).

const formatTRTLLM = "trtllm"

func init() {
	record.RegisterDoc[record.ServerRow](record.Server, formatTRTLLM, sniffTRTLLM, parseTRTLLM)
}

func sniffTRTLLM(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '[' {
		return false
	}
	rest := bytes.TrimSpace(line[1:])
	return bytes.HasPrefix(rest, []byte(`{"request_id":`)) && bytes.Contains(rest, []byte(`"perf_metrics":`))
}

func parseTRTLLM(r io.Reader, file string, out *record.DocOut[record.ServerRow]) error {
	sc := newSrvElems(r)
	for {
		el, err := sc.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if done, err := srvElemError(el, out); done || err != nil {
			if err != nil || el.notArray {
				return err
			}
			continue
		}
		rerr := trtllmRow(el.data, out.Next())
		var raw []byte
		if rerr != nil {
			raw = el.data
		}
		if err := out.Done(el.line, raw, rerr); err != nil {
			return err
		}
	}
}

func trtllmRow(data []byte, r *record.ServerRow) error {
	r.Format = formatTRTLLM
	var perf scan.Value
	err := scan.Object(data, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "request_id":
			n, ok, err := scan.Integer("request_id", v, 0, 1<<63-1)
			if ok {
				r.EngineRequestID = strconv.FormatInt(n, 10)
			}
			return err
		case "perf_metrics":
			perf = v
		}
		return nil
	})
	if err != nil {
		return err
	}
	if r.EngineRequestID == "" {
		return record.Missing("request_id")
	}
	if perf.Kind != scan.ObjectKind {
		return record.Missing("perf_metrics")
	}
	var timing scan.Value
	if err := scan.Object(perf.Raw, func(k []byte, esc bool, v scan.Value) error {
		if string(scan.MemberKey(k, esc)) == "timing_metrics" {
			timing = v
		}
		return nil
	}); err != nil {
		return err
	}
	if timing.Kind != scan.ObjectKind {
		return record.Missing("perf_metrics.timing_metrics")
	}
	const (
		arrival = iota
		scheduled
		firstToken
		lastToken
		nTimes
	)
	var t [nTimes]int64
	var have [nTimes]bool
	err = scan.Object(timing.Raw, func(k []byte, esc bool, v scan.Value) error {
		i := -1
		switch key := string(scan.MemberKey(k, esc)); key {
		case "arrival_time":
			i = arrival
		case "first_scheduled_time":
			i = scheduled
		case "first_token_time":
			i = firstToken
		case "last_token_time":
			i = lastToken
		default:
			return nil
		}
		var err error
		t[i], have[i], err = scan.Seconds(string(scan.MemberKey(k, esc)), v)
		return err
	})
	if err != nil {
		return err
	}
	if !have[arrival] {
		return record.Missing("timing_metrics.arrival_time")
	}
	pair := func(field string, a, b int, dst **int64) error {
		if !have[a] || !have[b] {
			return nil
		}
		d, err := scan.Between(field, t[a], t[b])
		*dst = d
		return err
	}
	if err := pair("first_scheduled_time − arrival_time", arrival, scheduled, &r.QueueNS); err != nil {
		return err
	}
	if err := pair("first_token_time − arrival_time", arrival, firstToken, &r.TTFTNS); err != nil {
		return err
	}
	if err := pair("first_token_time − first_scheduled_time", scheduled, firstToken, &r.PrefillNS); err != nil {
		return err
	}
	if err := pair("last_token_time − first_token_time", firstToken, lastToken, &r.DecodeNS); err != nil {
		return err
	}
	return pair("last_token_time − arrival_time", arrival, lastToken, &r.E2ENS)
}
