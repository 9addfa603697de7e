package whatif

import "testing"

// The first sentence answers the question asked: with --contract it says
// whether the contract holds and with how many replicas more, after the
// prediction when a change is asked, first when none is.
func TestHeadlineContract(t *testing.T) {
	t.Parallel()
	fig := func(queue, ttft float64) Figures {
		return Figures{Queue: [3]*float64{nil, f(queue), nil}, TTFT: [3]*float64{nil, f(ttft), nil}}
	}
	model := ModelResult{Model: "m", Fits: true, AsIs: fig(4000, 4200), Predicted: fig(1700, 1900)}
	check := ContractCheck{Case: "chat", Metric: "server_ttft_ms", Percentile: 95, Op: "<=", Target: 2000, Value: f(1900), N: 400, Met: true}
	pred := "With m: +1 replica(s), m's P95 TTFT would go from 4.2 s to 1.9 s (P95 queue 4.0 s → 1.7 s)"
	for _, tc := range []struct {
		name    string
		changed bool
		c       *ContractResult
		want    string
	}{
		{"no contract", true, nil, pred + "."},
		{"holds", true, &ContractResult{Met: true, Added: []int{0}, Models: []string{"m"}, Checks: []ContractCheck{check}},
			pred + "; the contract holds."},
		{"holds with more", true, &ContractResult{Met: true, Added: []int{2}, Models: []string{"m"}, Checks: []ContractCheck{check}},
			pred + "; the contract holds only with m +2 replica(s) more."},
		{"not met", true, &ContractResult{Added: []int{8}, Models: []string{"m"}, Checks: []ContractCheck{check}},
			pred + "; the contract is not met even with m +8 replica(s) more."},
		{"nothing judged", true, &ContractResult{Met: true, Added: []int{0}, Models: []string{"m"}},
			pred + "; the replay can judge none of the contract's constraints."},
		{"the contract is the question", false, &ContractResult{Met: true, Added: []int{3}, Models: []string{"m"}, Checks: []ContractCheck{check}},
			"The contract holds only with m +3 replica(s); the pool as it is, replayed, reproduces the logged queue, TTFT and E2E of every model."},
	} {
		r := &Result{Changed: tc.changed, Models: []ModelResult{model}, Contract: tc.c}
		if tc.changed {
			r.Changes = []string{"m: +1 replica(s)"}
		}
		if got := r.Headline(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
