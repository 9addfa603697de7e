package report

import "testing"

// Money below a cent keeps two significant digits, so a request's cost
// never shows as $0.0000; a cent and more keep four decimals.
func TestUSD(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	for _, tc := range []struct {
		v    *float64
		want string
	}{
		{nil, "–"},
		{f(0), "$0.0000"},
		{f(0.000214), "$0.00021"},
		{f(0.0000357), "$0.000036"},
		{f(0.0005), "$0.00050"},
		{f(0.0049), "$0.0049"},
		{f(0.00999), "$0.0100"}, // rounds up to a cent
		{f(0.01), "$0.0100"},
		{f(0.4321), "$0.4321"},
		{f(12.5), "$12.5000"},
	} {
		if got := usd(tc.v); got != tc.want {
			t.Errorf("usd(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
