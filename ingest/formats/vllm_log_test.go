package formats

import (
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

func TestVLLMLogLines(t *testing.T) {
	t.Parallel()
	const newp = "(APIServer pid=7) INFO 11-30 10:00:00 [async_llm.py:382] "
	const oldp = "INFO 11-30 10:00:00 async_llm_engine.py:211] "
	for _, c := range []struct {
		line string
		want string // "engine_id request_id finish_reason error" per row, ";"-separated; "!" for a reject
		at   string // the column its rows take the line's collector time for: arrival, end or -
	}{
		{newp + "Added request cmpl-job-12-0-0a1b2c3d.", "cmpl-job-12-0-0a1b2c3d job-12 - -", "-"},
		{oldp + "Added request cmpl-job-12-0-0a1b2c3d.", "cmpl-job-12-0-0a1b2c3d job-12-0-0a1b2c3d - -", "-"},
		{newp + "Received request chatcmpl-a: params: SamplingParams(n=1), lora_request: None.", "chatcmpl-a a - -", "arrival"},
		{oldp + "Received request cmpl-b-0: prompt: 'x: params: y', params: SamplingParams(n=1).", "cmpl-b-0 b - -", "arrival"},
		{newp + "Generated response chatcmpl-a (streaming complete): output: 'x', output_token_ids: None, finish_reason: stop", "chatcmpl-a a stop -", "end"},
		{newp + "Generated response chatcmpl-a: output: 'ends with, finish_reason: length', output_token_ids: [1], finish_reason: None", "chatcmpl-a a - -", "end"},
		{newp + "Generated response chatcmpl-a (streaming delta): output: 'x', output_token_ids: [1], finish_reason: None", "", "-"},
		{newp + "Request chatcmpl-a details: prompt: 'say Request x aborted.', prompt_token_ids: [1], prompt_embeds shape: None.", "", "-"},
		{newp + "Request chatcmpl-a aborted.", "chatcmpl-a a abort aborted", "end"},
		{newp + "Aborted request(s) a, b.", "a a abort aborted;b b abort aborted", "end"},
		{oldp + "Finished request cmpl-c-0.", "cmpl-c-0 c - -", "end"},
		{newp + "Request chatcmpl-a failed (engine dead).", "chatcmpl-a a - failed (engine dead)", "end"},
		{newp + "Aborted request(s) a,,b.", "!", "-"},
		{newp + "Received request chatcmpl-a", "!", "-"},
		{newp + "Added request chatcmpl-a", "!", "-"},
		{newp + "Finished request .", "!", "-"},
		{"(APIServer pid=7) INFO:     10.0.0.1:5 - \"POST /v1/completions HTTP/1.1\" 200 OK", "", "-"},
		{"Received request chatcmpl-a: params: x", "", "-"}, // no vLLM prefix
	} {
		// With a collector's time, a row takes it for the instant its
		// line stands for, and nothing else changes.
		const lineTime = 1796032800_123456789
		var timed record.RowQueue[record.ServerRow]
		timed.LineTime = lineTime
		p := &vllmLog{}
		terr := p.ParseLine([]byte(c.line), &timed)
		for _, r := range timed.Rows {
			if terr != nil {
				break // a rejected line's rows are dropped
			}
			at := "-"
			switch {
			case r.Arrival == lineTime && r.End == 0:
				at = "arrival"
			case r.End == lineTime && r.Arrival == 0:
				at = "end"
			case r.Arrival != 0 || r.End != 0:
				at = "wrong"
			}
			if at != c.at || r.Scheduled != 0 || r.FirstToken != 0 || r.E2ENS != nil {
				t.Errorf("%q with a collector time: %+v, want its %s time", c.line, r, c.at)
			}
		}
		var q record.RowQueue[record.ServerRow]
		err := p.ParseLine([]byte(c.line), &q)
		if (err == nil) != (terr == nil) || len(q.Rows) != len(timed.Rows) {
			t.Errorf("%q: %v, %d rows; with a collector time %v, %d rows", c.line, err, len(q.Rows), terr, len(timed.Rows))
		}
		var got []string
		for _, r := range q.Rows {
			if r.Format != formatVLLMLog || r.Arrival != 0 || r.End != 0 || r.E2ENS != nil {
				t.Errorf("%q: a row with a time or without its format: %+v", c.line, r)
			}
			got = append(got, strings.Join([]string{r.EngineRequestID, r.RequestID, orDash(r.FinishReason), orDash(r.Error)}, " "))
		}
		g := strings.Join(got, ";")
		if err != nil {
			g = "!"
			if record.Kind(err) == "other" {
				t.Errorf("%q: error of no kind: %v", c.line, err)
			}
		}
		if g != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.line, g, c.want)
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func FuzzVLLMLog(f *testing.F) {
	vllmFixtureSeeds(f, "../../testdata/ingest/vllm_log.txtar", "vllm.log", true)
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := decodeVLLMLines(t, formatVLLMLog, in)
		for i := range rows {
			r := &rows[i]
			checkVLLMRow(t, r)
			if r.EngineRequestID == "" || r.Arrival != 0 || r.Scheduled != 0 || r.FirstToken != 0 || r.End != 0 ||
				r.E2ENS != nil || r.QueueNS != nil || r.TTFTNS != nil || r.PrefillNS != nil || r.DecodeNS != nil || r.InferenceNS != nil {
				t.Fatalf("a vllm-log row must have an engine ID and no time: %+v", r)
			}
		}
	})
}
