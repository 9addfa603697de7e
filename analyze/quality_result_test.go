package analyze

import "testing"

// A contract value in dollars is printed as the report prints money: two
// significant digits below a cent (never $0.0000), four decimals above.
func TestConstraintFormatUSD(t *testing.T) {
	t.Parallel()
	c := ConstraintResult{Unit: "USD"}
	for v, want := range map[float64]string{
		0: "$0.0000", 0.000038: "$0.000038", 0.000214: "$0.00021", 0.0049: "$0.0049", 0.0348: "$0.0348", -0.00021: "$-0.00021",
	} {
		if got := c.Format(&v); got != want {
			t.Errorf("Format(%v) = %q, want %q", v, got, want)
		}
	}
}
