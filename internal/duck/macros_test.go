package duck

import (
	"context"
	"math"
	"testing"
)

// The shared statistical macros give the hand-computed values.
func TestMacros(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, done, err := Open(ctx, t.TempDir(), Resources{})
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	var small99, big99, small95, small50 bool
	var lo95, hi95, lo99, hi99 float64
	var wlo, whi float64
	var wnone *float64
	err = db.QueryRowContext(ctx, `SELECT pct_too_small(99, 0.99), pct_too_small(100, 0.99), pct_too_small(19, 0.95),
		pct_too_small(1, 0.5), pct_lo_rank(100, 0.95), pct_hi_rank(100, 0.95), pct_lo_rank(1000, 0.99), pct_hi_rank(1000, 0.99),
		wilson_lo(8, 10), wilson_hi(8, 10), wilson_lo(0, 0)`).
		Scan(&small99, &big99, &small95, &small50, &lo95, &hi95, &lo99, &hi99, &wlo, &whi, &wnone)
	if err != nil {
		t.Fatal(err)
	}
	if !small99 || big99 || !small95 || !small50 {
		t.Errorf("too small: P99 n=99 %v, n=100 %v, P95 n=19 %v, P50 n=1 %v; want true, false, true, true", small99, big99, small95, small50)
	}
	// n=100, q=0.95: 95 ∓ 1.959964·√4.75 = 95 ∓ 4.2716 → ranks 90 and 100+1.
	// n=1000, q=0.99: 990 ∓ 1.959964·√9.9 = 990 ∓ 6.1668 → ranks 983 and 997+1.
	if lo95 != 90 || hi95 != 101 || lo99 != 983 || hi99 != 998 {
		t.Errorf("ranks: P95 n=100 %v..%v, P99 n=1000 %v..%v; want 90..101, 983..998", lo95, hi95, lo99, hi99)
	}
	// Wilson, 8 of 10: (8 + 1.920729 ∓ 1.959964·√(1.6 + 0.960365)) / 13.841459.
	if math.Abs(wlo-0.490163) > 1e-5 || math.Abs(whi-0.943318) > 1e-5 || wnone != nil {
		t.Errorf("Wilson 8/10 = [%v, %v], 0/0 = %v; want [0.490163, 0.943318], NULL", wlo, whi, wnone)
	}
}
