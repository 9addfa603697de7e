package scan

import "testing"

func TestParseScaled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
		err   bool
	}{
		{"8.3", 6, 8_300_000, false},
		{"179", 6, 179_000_000, false},
		{"0.0061", 9, 6_100_000, false},
		{"1768471200.0061", 9, 1_768_471_200_006_100_000, false},
		{"1.0000000019", 9, 1_000_000_001, false}, // truncated past ns
		{"-1", 6, -1_000_000, false},
		{"2e-3", 9, 2_000_000, false},
		{"", 6, 0, true},
		{".", 6, 0, true},
		{"1.2.3", 6, 0, true},
		{"12ms", 6, 0, true},
		{"99999999999999999999", 0, 0, true},
	} {
		got, err := ParseScaled([]byte(tc.in), tc.scale)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("parseScaled(%q, %d) = %d, %v; want %d, error %v", tc.in, tc.scale, got, err, tc.want, tc.err)
		}
	}
}
