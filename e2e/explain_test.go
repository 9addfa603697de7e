package e2e

import (
	"context"
	"database/sql"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/explain"
)

// TestExplainTruth: explain on simulated requests shows each request's
// components as the truth has them, and places the tiers with every host's
// clock offset against its gateway within a few ms of the skew the
// simulator injected (clocks.csv), estimated from the logs alone.
func TestExplainTruth(t *testing.T) {
	t.Parallel()
	out := simulated(t, "steady", "--burst-multiplier", "1")
	sim := filepath.Join(filepath.Dir(out), "sim")
	ctx := context.Background()
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Twenty requests every tier logged, and that completed.
	rows, err := db.QueryContext(ctx, `SELECT request_id, client, gateway, replica, network_ms, application_ms, queue_ms, model_ms,
		(epoch_ns(client_start) - epoch_ns(TIMESTAMP '2026-11-30 10:00:00')) / 1e9
		FROM read_parquet(?) WHERE has_client AND has_gateway AND has_server AND status = 200 AND imperfection = ''
		ORDER BY request_id LIMIT 20`, filepath.Join(sim, "truth.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	type truth struct {
		client, gateway, replica string
		comps                    [4]float64
		atS                      float64 // true seconds since the simulation's epoch
	}
	want := map[string]truth{}
	var ids []string
	for rows.Next() {
		var id string
		var tr truth
		if err := rows.Scan(&id, &tr.client, &tr.gateway, &tr.replica, &tr.comps[0], &tr.comps[1], &tr.comps[2], &tr.comps[3], &tr.atS); err != nil {
			t.Fatal(err)
		}
		want[id] = tr
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != 20 {
		t.Fatalf("truth has %d complete requests, want 20", len(ids))
	}
	offsets := readClocks(t, filepath.Join(sim, "clocks.csv"))

	ex, err := explain.Run(ctx, out, explain.Options{IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Requests) != len(ids) || len(ex.Missing) != 0 {
		t.Fatalf("explained %d requests (missing %v), want %d", len(ex.Requests), ex.Missing, len(ids))
	}
	const compTol, offsetTol = 0.5, 3.0 // ms
	for i, r := range ex.Requests {
		tr := want[r.RequestID]
		if r.RequestID != ids[i] {
			t.Errorf("request %d is %s, want %s (the order asked for)", i, r.RequestID, ids[i])
		}
		for j, name := range []string{"network", "application", "queue", "model"} {
			var got *float64
			for _, c := range r.Components {
				if c.Metric == name {
					got = c.Value
				}
			}
			if got == nil || math.Abs(*got-tr.comps[j]) > compTol {
				t.Errorf("%s: %s = %v, truth %.3f", r.RequestID, name, deref(got), tr.comps[j])
			}
		}
		for _, o := range []struct {
			tier, host string
			got        explain.Offset
		}{{"client", tr.client, r.ClientOffset}, {"server", tr.replica, r.ServerOffset}} {
			true_ := offsets[o.host].at(tr.atS) - offsets[tr.gateway].at(tr.atS)
			if o.got.Ms == nil || math.Abs(*o.got.Ms-true_) > offsetTol {
				t.Errorf("%s: %s %s offset against %s = %v ms, injected %.3f ms", r.RequestID, o.tier, o.host, tr.gateway, deref(o.got.Ms), true_)
				continue
			}
			// The true offset lies within the bounds shown.
			if o.got.UncertaintyMs == nil || math.Abs(*o.got.Ms-true_) > *o.got.UncertaintyMs+1 {
				t.Errorf("%s: %s offset %.3f ± %v ms does not hold the injected %.3f ms", r.RequestID, o.host, *o.got.Ms, deref(o.got.UncertaintyMs), true_)
			}
		}
		// The waterfall places the server inside the gateway's upstream
		// span, and the client around the gateway.
		at := map[string]Span{}
		for _, s := range r.Spans {
			at[s.Tier+" "+s.Name] = Span(s)
		}
		up, q, cl := at["gateway upstream"], at["server queue"], at["client request → response"]
		if up.StartMs == nil || q.StartMs == nil || cl.StartMs == nil || *q.StartMs < *up.StartMs-offsetTol || *cl.StartMs > offsetTol {
			t.Errorf("%s: placed upstream %v, server arrival %v, client start %v", r.RequestID, up.StartMs, q.StartMs, cl.StartMs)
		}
	}
}

// Span is explain.Span, for the test's map.
type Span explain.Span

func deref(p *float64) any {
	if p == nil {
		return "NULL"
	}
	return *p
}

// hostClock is one row of simulate's clocks.csv.
type hostClock struct{ offsetMs, driftPPM float64 }

// at is the clock's offset in ms s seconds after the epoch.
func (c hostClock) at(s float64) float64 { return c.offsetMs + c.driftPPM*1e-6*s*1e3 }

// readClocks reads simulate's clocks.csv by host.
func readClocks(t *testing.T, path string) map[string]hostClock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]hostClock{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(strings.TrimSpace(r[2]), 64)
		d, err2 := strconv.ParseFloat(strings.TrimSpace(r[3]), 64)
		if err != nil || err2 != nil {
			t.Fatal(r)
		}
		out[r[1]] = hostClock{v, d}
	}
	return out
}
