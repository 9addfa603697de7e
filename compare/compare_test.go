package compare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/internal/duck"
)

// compareNetwork runs queries/compare.sql over two sides of 100 requests
// each whose network times the caller gives, with their start times in
// seconds, and returns the change of network time at P50.
func compareNetwork(t *testing.T, baseline, target [][2]float64) QuantileChange {
	t.Helper()
	ctx := context.Background()
	db, err := duck.OpenMemory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cols := []string{"client_e2e_ms", "client_ttft_ms", "tps_user", "application_ms", "queue_ms", "model_ms",
		"prefill_ms", "decode_ms", "ttft_network_ms", "ttft_application_ms", "ttft_queue_ms", "ttft_model_ms"}
	for name, side := range map[string][][2]float64{"baseline": baseline, "target": target} {
		var rows []string
		for _, r := range side {
			rows = append(rows, fmt.Sprintf("(TIMESTAMP_NS '2026-11-30 10:00:00' + to_microseconds(%d), %g)", int64(r[0]*1e6), r[1]))
		}
		q := "CREATE TABLE " + name + "_requests AS SELECT start, network_ms, true AS streamed, " +
			"NULL::DOUBLE AS " + strings.Join(cols, ", NULL::DOUBLE AS ") +
			" FROM (VALUES " + strings.Join(rows, ", ") + ") AS v(start, network_ms)"
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := groupings(ctx, db, [][]string{nil}, 1)
	if err != nil {
		t.Fatal(err)
	}
	slices := got[0]
	if len(slices) != 1 {
		t.Fatalf("%d slices, want all requests only", len(slices))
	}
	return slices[0].Point("network", 0.5)
}

// tenInstants places request i (0..99) in one of ten instants a minute
// apart, so that each instant is a block of its own (the side spans 540 s:
// blocks of 54 s); value gives its network time.
func tenInstants(value func(instant, j int) float64) [][2]float64 {
	var out [][2]float64
	for k := range 10 {
		for j := range 10 {
			out = append(out, [2]float64{float64(60 * k), value(k, j)})
		}
	}
	return out
}

func atValue(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }

func show(p *float64) string {
	if p == nil {
		return "open"
	}
	return fmt.Sprint(*p)
}

// TestCompareIntervalOrderStatistics checks the interval of a change by
// hand. Each side holds the values 1..100 (the target 31..130), each
// minute's block half below the median: the samples are independent in
// time (D = 1). P50 = 50.5 and 80.5. At 95% each side is bounded at
// sqrt(0.95), z = 2.2365: ranks floor(50 - 2.2365*5) = 38 and
// ceil(50 + 11.18) + 1 = 63, so the baseline's P50 lies in [38, 63] and
// the target's in [68, 93]: the change in [68 - 63, 93 - 38] = [5, 55],
// significant. At 99.9% (z = 3.4808: ranks 32 and 69) it is [62 - 69,
// 99 - 32], holding 0: not strong.
func TestCompareIntervalOrderStatistics(t *testing.T) {
	t.Parallel()
	mixed := func(shift float64) [][2]float64 {
		return tenInstants(func(k, j int) float64 {
			// Instant k holds ranks k+1, k+11, ..., k+91: five below 50.5.
			return float64(10*j+k+1) + shift
		})
	}
	q := compareNetwork(t, mixed(0), mixed(30))
	if !atValue(q.Baseline, 50.5) || !atValue(q.Target, 80.5) || !atValue(q.Delta, 30) {
		t.Errorf("P50 %s → %s (%s), want 50.5 → 80.5 (+30)", show(q.Baseline), show(q.Target), show(q.Delta))
	}
	if !atValue(q.Lo, 5) || !atValue(q.Hi, 55) || !q.Significant || q.Strong || q.TooFew {
		t.Errorf("interval %s to %s, significant %v, strong %v; want 5 to 55, significant, not strong", show(q.Lo), show(q.Hi), q.Significant, q.Strong)
	}
	if !atValue(q.BaselineD, 1) || !atValue(q.TargetD, 1) || !atValue(q.LoIndep, 5) || !atValue(q.HiIndep, 55) {
		t.Errorf("D %s and %s, independent interval %s to %s; want 1, 1, 5 to 55", show(q.BaselineD), show(q.TargetD), show(q.LoIndep), show(q.HiIndep))
	}
}

// TestCompareIntervalClustered: the same values, but the lower half all in
// the first five minutes, as a backlog holds its requests together: each
// block is all below the median or all above, so the share below it
// varies over the ten blocks by (10 - 5)^2 each: D = 10/9 * 250 / (0.25 *
// 100) = 11.11, and the ranks are 50 -/+ 2.2365 * sqrt(11.11 * 25) =
// 50 -/+ 37.27: 12 and 89. The change's interval is [42 - 89, 119 - 12] =
// [-47, 107]: the same +30 is no longer significant, while the interval
// of independent samples is still [5, 55].
func TestCompareIntervalClustered(t *testing.T) {
	t.Parallel()
	together := func(shift float64) [][2]float64 {
		return tenInstants(func(k, j int) float64 { return float64(10*k+j+1) + shift })
	}
	q := compareNetwork(t, together(0), together(30))
	if !atValue(q.Delta, 30) {
		t.Errorf("change %s, want +30", show(q.Delta))
	}
	if q.BaselineD == nil || math.Abs(*q.BaselineD-100.0/9) > 1e-9 || q.TargetD == nil || math.Abs(*q.TargetD-100.0/9) > 1e-9 {
		t.Errorf("D %s and %s, want 11.11", show(q.BaselineD), show(q.TargetD))
	}
	if !atValue(q.Lo, -47) || !atValue(q.Hi, 107) || q.Significant || q.Strong {
		t.Errorf("interval %s to %s, significant %v; want -47 to 107, not significant", show(q.Lo), show(q.Hi), q.Significant)
	}
	if !atValue(q.LoIndep, 5) || !atValue(q.HiIndep, 55) {
		t.Errorf("independent interval %s to %s, want 5 to 55", show(q.LoIndep), show(q.HiIndep))
	}
}

// TestCompareIntervalOneEvent: every request of each side at one instant
// is one block, one event: no interval (D = n, both bounds open) and no
// significance, however far the sides are apart.
func TestCompareIntervalOneEvent(t *testing.T) {
	t.Parallel()
	at := func(shift float64) [][2]float64 {
		var out [][2]float64
		for i := range 100 {
			out = append(out, [2]float64{0, float64(i+1) + shift})
		}
		return out
	}
	q := compareNetwork(t, at(0), at(1000))
	if q.Lo != nil || q.Hi != nil || q.Significant || q.Strong || !atValue(q.BaselineD, 100) {
		t.Errorf("interval %s to %s, significant %v, D %s; want open, not significant, D 100", show(q.Lo), show(q.Hi), q.Significant, show(q.BaselineD))
	}
	if !atValue(q.LoIndep, 1000-25) {
		// Independent: ranks 38 and 63, [1038 - 63, ...].
		t.Errorf("independent lower bound %s, want 975", show(q.LoIndep))
	}
}

// TestCompareModeGapCalibrated: both sides drawn alike from two modes of
// equal weight, 40 ms and 100 ms (two regions' round trips), so that P50
// falls in the gap between them and each side's sample P50 lands in one
// mode or the other by chance. Over 40 such pairs the 95% interval of the
// P50 change excludes 0 at most twice (1 in 20) and the 99.9% one never;
// a target 100 ms slower (both modes shifted) is significant (in the
// first 5 pairs).
func TestCompareModeGapCalibrated(t *testing.T) {
	t.Parallel()
	draw := func(rng *rand.Rand, shift float64) [][2]float64 {
		var out [][2]float64
		for range 300 {
			v := 40 + 3*rng.NormFloat64()
			if rng.IntN(2) == 1 {
				v = 100 + 5*rng.NormFloat64()
			}
			out = append(out, [2]float64{600 * rng.Float64(), v + shift})
		}
		return out
	}
	significant, strong, shifted := 0, 0, 0
	for i := range 40 {
		rng := rand.New(rand.NewPCG(uint64(i), 33))
		q := compareNetwork(t, draw(rng, 0), draw(rng, 0))
		if q.Significant {
			significant++
		}
		if q.Strong {
			strong++
		}
		if i < 5 {
			if q := compareNetwork(t, draw(rng, 0), draw(rng, 100)); q.Significant {
				shifted++
			}
		}
	}
	t.Logf("unchanged: %d of 40 significant, %d strong; shifted: %d of 5 significant", significant, strong, shifted)
	if significant > 2 || strong > 0 {
		t.Errorf("unchanged: %d of 40 significant, %d strong; want at most 2 and none", significant, strong)
	}
	if shifted != 5 {
		t.Errorf("shifted by 100 ms: %d of 5 significant, want 5", shifted)
	}
}
