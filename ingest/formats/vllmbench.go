package formats

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// vllm bench serve --save-result --save-detailed (and the older
// benchmarks/benchmark_serving.py) writes one JSON document with
// json.dump, on one line (--append-result appends one per line); its
// per-request data are parallel arrays (vllm/benchmarks/serve.py):
//
//	{"date":"20260115-100005","backend":"openai-chat","model_id":"…",…,
//	 "input_lens":[…],"output_lens":[…],"ttfts":[s…],"itls":[[s…]…],"latencies":[s…],
//	 "start_times":[perf_counter s…],"queue_times":[…],"generated_texts":[…],"errors":["",…],…}
//
// latencies, start_times and queue_times exist in recent releases only;
// without --save-detailed only latencies and queue_times are kept.
//
// One unit and row per array index i. Every time of this file is taken on
// the load generator's time.perf_counter(), a monotonic clock with no
// epoch, so there are no wall instants: Start, FirstToken and End stay
// empty, and only durations are filled: E2ENS = latencies[i] (send to last
// chunk) and TTFTNS = ttfts[i] (send to first chunk), for requests whose
// errors[i] is empty. start_times cannot be placed in wall time: "date" is
// the local time (no zone, whole seconds) when the run ended. Streamed:
// true when itls[i] has an entry (the response came in several chunks).
// PromptTokens = input_lens[i]; OutputTokens = output_lens[i] (successful
// requests only); Model = model_id; Error: errors[i] as a short label.
//
// Request IDs: vllm bench sends X-Request-Id = --request-id-prefix
// (default "bench-<8 hex>-", random per run) + the request's index in the
// dataset, which is its index i here, but it does not save the prefix. Run
// the benchmark with --metadata request_id_prefix=PREFIX (which adds that
// member to the file) and RequestID = PREFIX + i joins the gateway's and
// server's records; otherwise RequestID stays empty and the rows cannot be
// joined to other tiers at all (no ID, no wall time).
//
// A request's values are spread over the arrays, so every unit is reported
// at the line where its document starts (line 1 of a json.dump file); the
// index is in rejects.jsonl.

const formatVLLMBench = "vllm-bench"

func init() {
	record.RegisterDoc(record.Client, formatVLLMBench, sniffVLLMBench, parseVLLMBench)
}

// sniffVLLMBench accepts a result written on one line: its first members
// include date, backend (or endpoint_type) and model_id.
func sniffVLLMBench(line []byte) bool {
	if lgNativeLike(line) {
		return false
	}
	var date, backend, model bool
	lgSniffMembers(line, func(key []byte, _ scan.Value, _ bool) bool {
		switch string(key) {
		case "date":
			date = true
		case "backend", "endpoint_type":
			backend = true
		case "model_id":
			model = true
		}
		return !(date && backend && model)
	})
	return date && backend && model
}

// vllmBenchDoc is what one document holds per request, index-aligned.
type vllmBenchDoc struct {
	model, prefix         string
	inputLens, outputLens []*int32
	ttfts, latencies      []*int64
	chunked               []bool
	errors                [][]byte
	lens                  map[string]int
	firstLine             int64
	bad                   map[int]error // the first bad value of a request
}

func parseVLLMBench(r io.Reader, file string, out *record.DocOut[record.ClientRow]) error {
	d := newLgDocReader(r)
	var labels scan.Labels
	err := d.documents(func() error {
		doc := vllmBenchDoc{lens: map[string]int{}, bad: map[int]error{}, firstLine: d.line}
		if err := d.members(func(key string) error { return doc.member(d, key, &labels) }); err != nil {
			return err
		}
		return doc.emit(out)
	})
	return lgDocEnd(err)
}

func (doc *vllmBenchDoc) member(d *lgDocReader, key string, labels *scan.Labels) error {
	switch key {
	case "model_id":
		raw, err := d.value()
		if err != nil {
			return err
		}
		v, _, err := scan.ValueAt(raw, 0)
		if err == nil {
			err = labels.Label(key, v, &doc.model)
		}
		return err
	case "request_id_prefix":
		raw, err := d.value()
		if err != nil {
			return err
		}
		v, _, err := scan.ValueAt(raw, 0)
		if err == nil {
			err = scan.Text(key, v, &doc.prefix)
		}
		return err
	case "input_lens", "output_lens", "ttfts", "latencies", "errors", "itls":
	default:
		return d.skip()
	}
	n := 0
	err := d.elements(func(i int) error {
		n++
		if key == "itls" { // only whether a request had several chunks
			c, err := d.peekIn()
			if err != nil {
				return err
			}
			chunked := false
			if c == '[' {
				err = d.elements(func(int) error { chunked = true; return d.skip() })
			} else {
				err = d.skip()
			}
			doc.chunked = append(doc.chunked, chunked)
			return err
		}
		raw, err := d.value()
		if err != nil {
			return err
		}
		v, _, serr := scan.ValueAt(raw, 0)
		if serr != nil { // NaN, Infinity: Python's json writes them
			v = scan.Value{Kind: scan.Null}
		}
		var verr error
		name := key + "[" + strconv.Itoa(i) + "]"
		switch key {
		case "input_lens", "output_lens":
			var c *int32
			verr = scan.Count32(name, v, &c)
			if key == "input_lens" {
				doc.inputLens = append(doc.inputLens, c)
			} else {
				doc.outputLens = append(doc.outputLens, c)
			}
		case "ttfts", "latencies":
			var ns *int64
			verr = lgDurationField(name, v, 1e9, &ns)
			if key == "ttfts" {
				doc.ttfts = append(doc.ttfts, ns)
			} else {
				doc.latencies = append(doc.latencies, ns)
			}
		case "errors":
			b, _, err := scan.TextBytes(name, v)
			verr = err
			doc.errors = append(doc.errors, bytes.Clone(b))
		}
		if _, seen := doc.bad[i]; verr != nil && !seen {
			doc.bad[i] = verr
		}
		return nil
	})
	doc.lens[key] = n
	return err
}

// emit checks the arrays line up and writes one unit per index.
func (doc *vllmBenchDoc) emit(out *record.DocOut[record.ClientRow]) error {
	n, first := -1, ""
	for _, key := range []string{"latencies", "ttfts", "input_lens", "output_lens", "errors", "itls"} {
		m, ok := doc.lens[key]
		if !ok {
			continue
		}
		if n < 0 {
			n, first = m, key
		} else if m != n {
			return fmt.Errorf("%w: per-request arrays of different lengths (%s %d, %s %d): cannot tell which values belong together",
				record.ErrBadValue, first, n, key, m)
		}
	}
	if n < 0 {
		return fmt.Errorf("%w: no per-request arrays (latencies, ttfts, …): not a vllm bench result, or saved without --save-detailed", record.ErrMissingField)
	}
	for i := range n {
		pos := fmt.Appendf(nil, `{"request":%d}`, i)
		if err := out.Done(doc.firstLine, pos, doc.row(i, out)); err != nil {
			return err
		}
	}
	return nil
}

func (doc *vllmBenchDoc) row(i int, out *record.DocOut[record.ClientRow]) error {
	if err := doc.bad[i]; err != nil {
		return err
	}
	r := record.ClientRow{Model: doc.model, Format: formatVLLMBench}
	if doc.prefix != "" {
		r.RequestID = doc.prefix + strconv.Itoa(i)
	}
	if i < len(doc.inputLens) {
		r.PromptTokens = doc.inputLens[i]
	}
	if i < len(doc.errors) && len(doc.errors[i]) > 0 {
		r.Error = string(lgErrorLabel(doc.errors[i]))
	} else {
		if i < len(doc.outputLens) {
			r.OutputTokens = doc.outputLens[i]
		}
		if i < len(doc.latencies) {
			r.E2ENS = doc.latencies[i]
		}
		if i < len(doc.ttfts) {
			r.TTFTNS = doc.ttfts[i]
		}
	}
	if i < len(doc.chunked) && doc.chunked[i] {
		r.Streamed = record.BoolPtr(true)
	}
	*out.Next() = r
	return nil
}
