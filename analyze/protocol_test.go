package analyze

import (
	"strings"
	"testing"
)

// Every percentile metric of the protocol says how its percentiles are
// shown: the order-statistic 95% interval and the "n too small"
// threshold, with the numbers of queries/macros.sql.
func TestProtocolIntervalRule(t *testing.T) {
	t.Parallel()
	percentiles := 0
	for _, e := range Protocol {
		if !strings.Contains(e.Method, "quantile_cont") {
			continue
		}
		percentiles++
		for _, want := range []string{
			"95% interval from order statistics",
			"floor(nq − 1.96 √(nq(1 − q)))", "ceil(nq + 1.96 √(nq(1 − q))) + 1",
			`n < 1/(1 − q) samples`, "P95 from fewer than 20", "P99 from fewer than 100", `"n too small", never a number`,
		} {
			if !strings.Contains(e.Method, want) {
				t.Errorf("%s: Method lacks %q: %s", e.Metric, want, e.Method)
			}
		}
	}
	// 8 latency and rate distributions, 13 components (7 of E2E, 6 of
	// TTFT), model per output token, the time series and the failures'
	// own E2E (Error rate).
	if percentiles != 24 {
		t.Errorf("%d protocol entries with percentiles, want 24", percentiles)
	}
}
