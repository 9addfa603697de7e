package e2e

import (
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The metamorphic property of a missing tier: removing one tier's logs never
// moves time into another component; it shows as not split. One simulation
// is analyzed with every tier, then three times more with the logs of one
// tier (server, gateway, client) left out. Per request present in both
// runs:
//   - every component the reduced run gives equals the full run's value
//     (within 1e-6 ms), or is NULL;
//   - every not-split component of the reduced run equals the sum of the
//     full run's components it stands for, when the full run has them all.
//
// A component is a set of the four parts (network, application, queue,
// model); a not-split one is the union of those it stands for
// (queries/requests/README.md). The full run may itself lack a tier for some
// requests (simulate loses and truncates lines), so the parts it has are
// whatever non-NULL components of it cover the set.

// mtComponent is a requests.parquet column and the parts it holds.
type mtComponent struct {
	col   string
	parts []string
}

var mtE2E = []mtComponent{
	{"network_ms", []string{"network"}},
	{"application_ms", []string{"application"}},
	{"queue_ms", []string{"queue"}},
	{"model_ms", []string{"model"}},
	{"upstream_ms", []string{"application", "queue", "model"}},
	{"network_application_ms", []string{"network", "application"}},
	{"unsplit_ms", []string{"network", "application", "queue", "model"}},
}

var mtTTFT = []mtComponent{
	{"ttft_network_ms", []string{"network"}},
	{"ttft_application_ms", []string{"application"}},
	{"ttft_queue_ms", []string{"queue"}},
	{"ttft_model_ms", []string{"model"}},
	{"ttft_network_application_ms", []string{"network", "application"}},
	{"ttft_unsplit_ms", []string{"network", "application", "queue", "model"}},
}

// mtRow is one request's components (nil: NULL) and whether the run
// called it aborted.
type mtRow struct {
	aborted bool
	v       map[string]*float64
}

func mtRead(t *testing.T, db *sql.DB, dir string) map[string]mtRow {
	t.Helper()
	var cols []string
	for _, c := range append(append([]mtComponent{}, mtE2E...), mtTTFT...) {
		cols = append(cols, c.col)
	}
	rows, err := db.Query(fmt.Sprintf("SELECT request_id, aborted, %s FROM read_parquet('%s')",
		strings.Join(cols, ", "), filepath.Join(dir, "requests.parquet")))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]mtRow{}
	for rows.Next() {
		var id string
		var aborted sql.NullBool
		vals := make([]sql.NullFloat64, len(cols))
		dest := []any{&id, &aborted}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			t.Fatal(err)
		}
		r := mtRow{aborted: aborted.Bool, v: map[string]*float64{}}
		for i, c := range cols {
			if vals[i].Valid {
				f := vals[i].Float64
				r.v[c] = &f
			}
		}
		out[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// mtExpect is what the full run says a reduced run's component c should
// be: the sum of the full run's non-NULL components whose parts lie in c's
// and together cover them exactly (false when they do not).
func mtExpect(full mtRow, set []mtComponent, c mtComponent) (float64, bool) {
	want := map[string]bool{}
	for _, p := range c.parts {
		want[p] = true
	}
	covered := map[string]bool{}
	sum := 0.0
	for _, f := range set {
		v := full.v[f.col]
		if v == nil {
			continue
		}
		inside := true
		for _, p := range f.parts {
			inside = inside && want[p]
		}
		if !inside {
			continue
		}
		for _, p := range f.parts {
			if covered[p] {
				return 0, false // overlapping components: no sum to compare
			}
			covered[p] = true
		}
		sum += *v
	}
	return sum, len(covered) == len(want)
}

func TestMissingTierNeverMovesTime(t *testing.T) {
	t.Parallel()
	sim := filepath.Join(t.TempDir(), "sim")
	// Native, vllm-otlp and triton servers: instants alone, and durations
	// that split the server's overhead (triton's is 0.012 ms here, which
	// network_application_ms must then hold, as application_ms does).
	code, stdout, stderr := runCLI(t, "simulate", "--out", sim, "--requests", "1500", "--seed", "31",
		"--formats", "native,vllm-otlp,triton")
	if code != 0 {
		t.Fatalf("simulate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	tiers := []string{"client", "gateway", "server"}
	// analyzeWithout ingests and analyzes the logs but drop's; only the
	// run without the server's is read for its report, so only it runs
	// the whole pipeline (run), the others stop after analyze.
	analyzeWithout := func(drop string) string {
		out := filepath.Join(t.TempDir(), "out-without-"+drop)
		var inputs []string
		for _, tier := range tiers {
			if tier != drop {
				inputs = append(inputs, "--"+tier, filepath.Join(sim, tier, "*"))
			}
		}
		if drop != "server" {
			ingestAndAnalyze(t, out, inputs...)
			return out
		}
		args := append([]string{"run", "--threads", "1", "--out", out}, inputs...)
		if code, stdout, stderr := runCLI(t, args...); code != 0 {
			t.Fatalf("run without %q: exit %d\n%s\n%s", drop, code, stdout, stderr)
		}
		return out
	}
	db, err := sql.Open("duckdb", duckOneThread)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	full := mtRead(t, db, analyzeWithout(""))

	// The not-split components each reduction must produce, so that the
	// test cannot pass by comparing nothing.
	mustSee := map[string][]string{
		"server":  {"upstream_ms", "ttft_unsplit_ms"},
		"gateway": {"network_application_ms", "ttft_network_application_ms"},
		"client":  {"application_ms", "queue_ms", "model_ms", "ttft_application_ms"},
	}
	for _, drop := range tiers {
		out := analyzeWithout(drop)
		reduced := mtRead(t, db, out)
		if drop == "server" {
			// The report says where the slowest 5% spend their time: in
			// the gateway's E2E, not split, never in network by default.
			md, err := os.ReadFile(filepath.Join(out, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			if want := "The slowest 5% of requests by client E2E (n="; !strings.Contains(string(md), want) ||
				!strings.Contains(string(md), ") spend the most time in upstream (application + queue + model, not split without a server record): ") {
				t.Errorf("without server, report.md does not attribute the slowest 5%% to upstream time not split")
			}
			if strings.Contains(string(md), "spend the most time in network") {
				t.Errorf("without server, report.md says the slowest 5%% spend the most time in network")
			}
		}
		compared := map[string]int{}
		abortedOnly := 0
		joined := 0
		var bad []string
		ids := make([]string, 0, len(reduced))
		for id := range reduced {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			r := reduced[id]
			f, ok := full[id]
			if !ok {
				continue
			}
			joined++
			for _, set := range [][]mtComponent{mtE2E, mtTTFT} {
				for _, c := range set {
					v := r.v[c.col]
					if v == nil {
						continue
					}
					want, ok := mtExpect(f, set, c)
					switch {
					case ok:
						compared[c.col]++
						if d := math.Abs(*v - want); d > 1e-6 {
							bad = append(bad, fmt.Sprintf("without %s, %s %s = %.6f, the full run's %v sum to %.6f", drop, id, c.col, *v, c.parts, want))
						}
					case len(c.parts) == 1 && f.aborted:
						// The full run withheld a difference the reduced
						// one cannot know to withhold: the server outlived
						// the gateway, which only the server's log shows.
						abortedOnly++
					case len(c.parts) == 1:
						bad = append(bad, fmt.Sprintf("without %s, %s %s = %.6f, NULL in the full run", drop, id, c.col, *v))
					}
				}
			}
		}
		t.Logf("without %s: %d requests in both runs; compared %v; %d values the full run left NULL for an aborted request", drop, joined, compared, abortedOnly)
		if joined < 1000 {
			t.Errorf("without %s: only %d requests in both runs", drop, joined)
		}
		for _, col := range mustSee[drop] {
			if compared[col] < 200 {
				t.Errorf("without %s: %s compared on only %d requests", drop, col, compared[col])
			}
		}
		for i, b := range bad {
			if i == 20 {
				t.Errorf("... and %d more", len(bad)-i)
				break
			}
			t.Error(b)
		}
	}
}
