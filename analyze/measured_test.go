package analyze

import (
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// SGLang logs queue_time (wait queue → forward entry) and the instants
// request_received_ts and forward_entry_time, which differ by tokenization
// and dispatch as well. The shape of SGLang's documented sample, in whole
// ms: received 0, forward entry 365, prefill finished 531, finished 2640;
// queue_time 351, e2e_latency 2640. queue_ms is the logged 351, not
// 365 - 0; the 14 ms before the queue are server overhead:
//
//	prefill = 531 - 365 = 166, decode = 2640 - 531 = 2109, work 2275
//	overhead = 2640 - 351 - 2275 = 14; TTFT overhead = 531 - 351 - 166 = 14
//	gateway 2660 - 0 = 2660 (native; offsets cancel), client 2680:
//	network 20, application 2660 - 2640 + 14 = 34, model 2275:
//	20 + 34 + 351 + 2275 = 2680.
func TestQueueIsQueueingOnly(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	f := analyzetest.Fixture{
		Clients: []analyzetest.Client{{ID: "s1", Start: at(0), End: at(2680), Line: 1}},
		Gateways: []analyzetest.Gateway{{ID: "s1", Start: at(10), UpstreamStart: at(15), UpstreamEnd: at(2665),
			End: at(2670), Line: 1}},
		Servers: []analyzetest.Server{{ID: "s1", Arrival: at(20), Scheduled: at(385), FirstToken: at(551), End: at(2660),
			E2E: at(2640), Queue: at(351), TTFT: at(531), Prefill: at(166), Decode: at(2109), Inference: at(2275),
			Format: "sglang-metrics", Line: 1}},
	}
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	checkMs(t, rows, "s1", map[string]float64{
		"client_e2e_ms": 2680, "gateway_e2e_ms": 2660, "server_e2e_ms": 2640,
		"queue_ms": 351, "ttft_queue_ms": 351, "prefill_ms": 166, "decode_ms": 2109, "model_ms": 2275,
		"server_overhead_ms": 14, "ttft_server_overhead_ms": 14,
		"network_ms": 20, "application_ms": 34,
	})
}

// AIPerf's documented sample, in whole ms: request_start_ns 0 and
// request_end_ns 306 (wall clock), request_latency 297 and
// time_to_first_token 256 (perf_counter), 9 output tokens, streamed.
// client_e2e_ms is request_latency (297), the wall difference is kept as
// client_wall_e2e_ms (306), and per-user tokens/s is the 8 tokens after the
// first over the measured stream: 8 / (0.297 - 0.256) s = 195 (AIPerf's own
// 192 is the same from unrounded times), not 9 / (0.306 - 0.256) s = 180.
//
// AIPerf writes no status for a completed request (its error is null), so
// an AIPerf-only run's completed requests are those without an error: a1
// and a2 (9 + 11 tokens) over the window of starts 0 to 1 s = 20 tokens/s;
// a3 was cancelled (code 499).
func TestAIPerfOnly(t *testing.T) {
	t.Parallel()
	at, yes := analyzetest.At, analyzetest.Bool(true)
	f := analyzetest.Fixture{Clients: []analyzetest.Client{
		{ID: "a1", Start: at(0), FirstToken: at(256), End: at(306), E2E: at(297), TTFT: at(256), Streamed: yes,
			Output: analyzetest.Int(9), Format: "aiperf", Line: 1},
		{ID: "a3", Start: at(500), End: at(501), Status: analyzetest.Int(499), Error: "RequestCancellationError",
			Format: "aiperf", Line: 2},
		{ID: "a2", Start: at(1000), FirstToken: at(1100), End: at(1400), E2E: at(400), TTFT: at(100), Streamed: yes,
			Output: analyzetest.Int(11), Format: "aiperf", Line: 3},
	}}
	_, _, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	checkMs(t, rows, "a1", map[string]float64{
		"client_e2e_ms": 297, "client_wall_e2e_ms": 306, "client_ttft_ms": 256,
		"tps_user": 8 / 0.041,
	})
	r := summarize(t, f)
	all := r.Slices[0]
	if all.CompletedRequests != 2 || all.CompletedOutputTokens != 20 || !near(all.ServiceTPS, 20) || !near(all.WindowS, 1) {
		t.Errorf("service-wide: %d completed requests, %d tokens, %s tokens/s over %s s; want 2, 20, 20 over 1",
			all.CompletedRequests, all.CompletedOutputTokens, fmtp(all.ServiceTPS), fmtp(all.WindowS))
	}
}
