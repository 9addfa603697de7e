package formats

import (
	"testing"

	"github.com/infertrace/infertrace/ingest/record"
)

func FuzzVLLMBench(f *testing.F) {
	txtarSeeds(f, "vllmbench.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeDoc(t, parseVLLMBench, in)
		for _, r := range rows {
			// perf_counter times: never a wall instant
			if r.Start != 0 || r.FirstToken != 0 || r.End != 0 || r.Format != formatVLLMBench {
				t.Fatalf("row with wall times: %+v", r)
			}
			if r.Error != "" && (r.E2ENS != nil || r.TTFTNS != nil) {
				t.Fatalf("a failed request with latencies: %+v", r)
			}
		}
	})
}

// Each load generator's first line is claimed by its own sniffer only, and
// native lines by none of them.
func TestLoadGeneratorSniffers(t *testing.T) {
	t.Parallel()
	sniffers := map[string]func([]byte) bool{
		formatAIPerf: sniffAIPerf, formatK6: sniffK6, formatGenAIPerf: sniffGenAIPerf,
		formatGuideLLM: sniffGuideLLM, formatVLLMBench: sniffVLLMBench, formatNative: sniffNative(record.Client),
	}
	for line, want := range map[string]string{
		`{"metadata":{"session_num":0,"x_request_id":"a1","request_start_ns":1796032800123456789,"request_end_ns":1796032800623456789},"metrics":{},"error":null}`: formatAIPerf,
		// cut at 64 KiB by the sniffer, inside the metrics
		`{"metadata":{"x_request_id":"a1","request_start_ns":1796032800123456789},"metrics":{"inter_chunk_latency":{"value":[1.5,2.`:                                     formatAIPerf,
		`{"type":"Metric","data":{"name":"vus","type":"gauge","contains":"default","thresholds":[],"submetrics":null},"metric":"vus"}`:                                   formatK6,
		`{"type":"Point","data":{"time":"2026-11-30T10:00:00Z","value":1,"tags":null},"metric":"http_reqs"}`:                                                             formatK6,
		`{"experiments":[{"experiment":{"mode":"concurrency","value":1},"requests":[{"timestamp":1796032800000000000,"request_inputs":{"pay`:                             formatGenAIPerf,
		`{"metadata": {"version": 2, "guidellm_version": "0.4.0"}, "args": {"target": "http://gw"}, "benchmarks": [{"type_": "gen`:                                       formatGuideLLM,
		`{"benchmarks":[{"type_":"generative_benchmark","requests":{"successful":[`:                                                                                      formatGuideLLM,
		`{"date": "20261130-100005", "endpoint_type": "openai-chat", "backend": "openai-chat", "label": null, "model_id": "m", "tokenizer_id": "m", "input_lens": [1, 2`: formatVLLMBench,
		`{"request_id":"r1","start":"2026-11-30T10:00:00Z","end":1796032802.5,"metadata":{"request_start_ns":1},"metrics":{}}`:                                           formatNative,
		`{"request_id":"r1","start":1796032800,"end":1796032801,"type":"Point","data":{},"metric":"m"}`:                                                                  formatNative,
		`{"request_id":"r1","start":1796032800,"end":1796032801,"benchmarks":[],"date":"x","backend":"b","model_id":"m"}`:                                                formatNative,
		`{`: "",
		`{"metadata":{"x_request_id":"a1","request_start_ns":1},"start_perf_ns":5,"payload":{},"responses":[]}`: "",
		`{"type":"Point","data":{},"metric":"vus","request_id":"r1","start":1}`:                                 formatNative,
	} {
		var got []string
		for name, sniff := range sniffers {
			if sniff([]byte(line)) {
				got = append(got, name)
			}
		}
		if want == "" && len(got) == 0 || len(got) == 1 && got[0] == want {
			continue
		}
		t.Errorf("%.80s: claimed by %v, want %q", line, got, want)
	}
}
