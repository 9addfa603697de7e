package compare

import (
	"context"
	"reflect"
	"testing"

	"github.com/infertrace/infertrace/internal/duck"
)

// TestSlicingsPerQuery: 4 KiB per request and slicing within the memory
// limit: all 8 slicings of a usual comparison at once, fewer in larger
// ones, one at a time at least.
func TestSlicingsPerQuery(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		requests, limit int64
		want            int
	}{
		{0, 0, 1024}, {1, 0, 1024}, {4000, 0, 65}, {32768, 0, 8}, {32769, 0, 7}, {120000, 0, 2}, {300000, 0, 1}, {1 << 30, 0, 1},
		{4000, 1 << 30, 65}, {4000, 100 << 20, 6}, {120000, 500 << 20, 1},
	} {
		if got := slicingsPerQuery(c.requests, c.limit); got != c.want {
			t.Errorf("slicingsPerQuery(%d, %d) = %d, want %d", c.requests, c.limit, got, c.want)
		}
	}
}

// TestSlicingsAtATime: the slicings of a comparison give the same slices
// whether queries/compare.sql takes them all at once, three or one at a
// time, as a large comparison does.
func TestSlicingsAtATime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := simStore(t, "seed11"), simStore(t, "seed13-euwest")
	db, closeDB, err := duck.Open(ctx, b, duck.Resources{})
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	for i, s := range []CompareSide{{Dir: a}, {Dir: b}} {
		if err := registerSide(ctx, db, []string{"baseline", "target"}[i], s); err != nil {
			t.Fatal(err)
		}
	}
	gs := [][]string{nil, {"region", "prompt_bucket"}, {"model"}, {"region"}, {"use_case"}, {"gateway"}, {"replica"}, {"client"}}
	all, err := groupings(ctx, db, gs, len(gs))
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(gs) || len(all[0]) != 1 || len(all[1]) < 6 || len(all[3]) != 4 {
		t.Fatalf("slices per slicing: %d slicings, %d, %d and %d slices in the first, second and fourth; want 8, 1, 6 or more, 4 (three regions and none)",
			len(all), len(all[0]), len(all[1]), len(all[3]))
	}
	for _, perQuery := range []int{3, 1, 0} {
		got, err := groupings(ctx, db, gs, perQuery)
		if err != nil {
			t.Fatal(err)
		}
		for gi := range gs {
			if !reflect.DeepEqual(got[gi], all[gi]) {
				t.Errorf("%d slicings per query: the slices of %v differ from those of all slicings at once", perQuery, gs[gi])
			}
		}
	}
}
