package analyze

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/simulate"
)

// TestRunPartEmptyShare: a store of one window analyzed as 2 parts gives
// every request in part 0 and a part 1 without rows but with part 0's
// columns and types, which AttachRequests reads together as the whole pass's
// rows; without part 1 it is refused (ErrParts), and after an ingest the
// parts are stale (ErrStale).
func TestRunPartEmptyShare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.Epoch = filepath.Join(root, "sim"), 200, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	dir := filepath.Join(root, "store")
	ingestStore(t, ctx, dir, simulated(t, ctx, cfg))
	res := duck.Resources{MemoryLimit: 512 << 20, Threads: 1}
	whole, err := RunWith(ctx, dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if whole.Coverage.Requests < 150 {
		t.Fatalf("the whole pass holds %d requests, want about 200", whole.Coverage.Requests)
	}
	// The whole pass's rows, kept apart from the parts (a part removes it).
	wholeCopy := filepath.Join(root, "whole.parquet")
	if err := os.Rename(filepath.Join(dir, RequestsFile), wholeCopy); err != nil {
		t.Fatal(err)
	}
	p1, err := RunPart(ctx, dir, res, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p1.Coverage.Requests != 0 {
		t.Errorf("part 1 of 2 of one window holds %d requests, want 0", p1.Coverage.Requests)
	}
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	if err := AttachRequests(ctx, db, dir); !errors.Is(err, ErrParts) {
		t.Errorf("AttachRequests without part 0: %v, want ErrParts", err)
	}
	p0, err := RunPart(ctx, dir, res, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p0.Coverage != whole.Coverage {
		t.Errorf("part 0 of 2: %+v, want the whole pass's %+v", p0.Coverage, whole.Coverage)
	}
	schema := func(path string) [][2]string {
		rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet("+duck.Quote(path)+"))")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var cols [][2]string
		for rows.Next() {
			var c [2]string
			if err := rows.Scan(&c[0], &c[1]); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, c)
		}
		return cols
	}
	s0, s1 := schema(p0.Path), schema(p1.Path)
	if len(s0) < 10 || !reflect.DeepEqual(s0, s1) {
		t.Errorf("the empty part's columns differ from part 0's:\n%v\n%v", s1, s0)
	}
	if !reflect.DeepEqual(s0, schema(wholeCopy)) {
		t.Errorf("part 0's columns differ from the whole pass's")
	}
	if err := AttachRequests(ctx, db, dir); err != nil {
		t.Fatal(err)
	}
	var diff int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM (
  (SELECT * FROM requests EXCEPT ALL SELECT * FROM read_parquet(`+duck.Quote(wholeCopy)+`))
  UNION ALL
  (SELECT * FROM read_parquet(`+duck.Quote(wholeCopy)+`) EXCEPT ALL SELECT * FROM requests))`).Scan(&diff); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("the parts and the whole pass differ in %d rows", diff)
	}
	// An ingest since: both parts are stale.
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AttachRequests(ctx, db, dir); !errors.Is(err, ErrStale) {
		t.Errorf("AttachRequests after the manifest changed: %v, want ErrStale", err)
	}
}

// TestPartPlanKept: the parts' plan is made once per manifest and kept in
// facts/plan.json, which the parts' jobs read instead of planning again;
// a kept plan of another manifest, period or version is made again.
func TestPartPlanKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.Epoch = filepath.Join(root, "sim"), 50, time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	dir := filepath.Join(root, "store")
	ingestStore(t, ctx, dir, simulated(t, ctx, cfg))
	res := duck.Resources{MemoryLimit: 256 << 20, Threads: 1}
	real := Plan{Windows: []Window{{}}}
	if p, err := partPlan(ctx, dir, res); err != nil || !reflect.DeepEqual(p, real) {
		t.Fatalf("plan %+v, %v: want %+v", p, err, real)
	}
	sum, err := manifestSum(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A plan kept for this manifest is the one used, whatever it says.
	cut := time.Date(2026, 11, 30, 10, 0, 10, 0, time.UTC)
	other := Plan{Windows: []Window{{To: cut}, {From: cut, Unstarted: true}}, Facts: true}
	keep := func(k keptPlan) {
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, FactsDir, PlanFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep(keptPlan{Version: planVersion, Manifest: sum, Period: PartPeriod.String(), Plan: other})
	if p, err := partPlan(ctx, dir, res); err != nil || !reflect.DeepEqual(p, other) {
		t.Errorf("plan %+v, %v: want the kept %+v", p, err, other)
	}
	for name, k := range map[string]keptPlan{
		"another manifest": {Version: planVersion, Manifest: "0" + sum[1:], Period: PartPeriod.String(), Plan: other},
		"another period":   {Version: planVersion, Manifest: sum, Period: time.Hour.String(), Plan: other},
		"another version":  {Version: planVersion + 1, Manifest: sum, Period: PartPeriod.String(), Plan: other},
	} {
		keep(k)
		if p, err := partPlan(ctx, dir, res); err != nil || !reflect.DeepEqual(p, real) {
			t.Errorf("%s: plan %+v, %v: want it made again, %+v", name, p, err, real)
		}
	}
	// The plan made again is kept.
	if p, err := partPlan(ctx, dir, res); err != nil || !reflect.DeepEqual(p, real) {
		t.Errorf("plan %+v, %v: want %+v", p, err, real)
	}
}
