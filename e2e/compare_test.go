package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The incident tests: the simulator injects one incident, the real CLI
// ingests, analyzes and compares, and the first finding must name the
// component the incident is in, and where.

// incidentRequests is enough for P95s with 200+ samples per region and
// model, small enough to stay fast.
const incidentRequests = "3000"

var incidentDirs sync.Map // name -> *incidentDir

type incidentDir struct {
	once sync.Once
	root string // the temporary directory, removed after the tests
	dir  string
	err  string
}

// removeIncidentDirs removes what simulated and chatAnalyzed wrote;
// TestMain calls it.
func removeIncidentDirs() {
	incidentDirs.Range(func(_, v any) bool {
		if d := v.(*incidentDir); d.root != "" {
			os.RemoveAll(d.root)
		}
		return true
	})
	chatSides.Range(func(_, v any) bool { // compare_contract_test.go
		if c := v.(*chatSide); c.root != "" {
			os.RemoveAll(c.root)
		}
		return true
	})
}

// simulated simulates with the flags given (seed 5, no cold replica),
// ingests and analyzes the logs (DuckDB on one thread, see runCLI), once
// per name for the whole test binary.
func simulated(t *testing.T, name string, flags ...string) string {
	t.Helper()
	v, _ := incidentDirs.LoadOrStore(name, &incidentDir{})
	d := v.(*incidentDir)
	d.once.Do(func() {
		root, err := os.MkdirTemp("", "infertrace-incident-")
		if err != nil {
			d.err = err.Error()
			return
		}
		d.root = root
		sim, out := filepath.Join(root, "sim"), filepath.Join(root, "out")
		args := append([]string{"simulate", "--out", sim, "--requests", incidentRequests, "--seed", "5", "--cold", "none"}, flags...)
		if code, _, stderr := runCLI(t, args...); code != 0 {
			d.err = "simulate: " + stderr
			return
		}
		// ingest and analyze: what compare and explain read (no test
		// here reads the report run would write).
		if code, _, stderr := runCLI(t, "ingest", "--quiet", "--client", "native:"+filepath.Join(sim, "client"),
			"--gateway", "native:"+filepath.Join(sim, "gateway"), "--server", "native:"+filepath.Join(sim, "server"), "--out", out); code != 0 {
			d.err = "ingest: " + stderr
			return
		}
		if code, _, stderr := runCLI(t, "analyze", "--quiet", "--threads", "1", out); code != 0 {
			d.err = "analyze: " + stderr
			return
		}
		d.dir = out
	})
	if d.err != "" {
		t.Fatal(d.err)
	}
	return d.dir
}

// findings runs compare ARGS --out and returns the findings it printed.
// DuckDB runs on one thread (see runCLI).
func compareFindings(t *testing.T, args ...string) []string {
	t.Helper()
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, append(append([]string{"compare", "--quiet"}, args...), "--threads", "1", "--out", out)...)
	if code != 0 {
		t.Fatalf("compare %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	var fs []string
	for _, l := range strings.Split(stdout, "\n") {
		if f, ok := strings.CutPrefix(l, "- "); ok {
			fs = append(fs, f)
		}
	}
	for _, name := range []string{"compare.md", "compare.html"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || len(fs) == 0 || !strings.Contains(string(b), "Findings") {
			t.Fatalf("compare wrote no %s with findings (%v)\n%s", name, err, stdout)
		}
	}
	return fs
}

func wantFirst(t *testing.T, fs []string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(fs[0], p) {
			t.Errorf("first finding lacks %q:\n%s\nall findings:\n%s", p, fs[0], strings.Join(fs, "\n"))
		}
	}
}

// TestCompareBurst: the burst window (10 s at 6x from 40 s, and its
// backlog) against the steady minutes before it, in one dir: the first
// finding is server queueing, most of it on the 70B model, whose replicas
// the burst overloads most.
func TestCompareBurst(t *testing.T) {
	t.Parallel()
	dir := simulated(t, "burst")
	fs := compareFindings(t, dir, "--baseline", "10:00:05-10:00:35", "--target", "10:00:40-10:00:55")
	wantFirst(t, fs, "Server queueing rose", "most in model=llama-3.1-70b")
}

// TestCompareRegionNetwork: 150 ms more each way for eu-west's clients,
// against the same stack without it: network time, in region=eu-west, with
// the model flat.
func TestCompareRegionNetwork(t *testing.T) {
	t.Parallel()
	base := simulated(t, "steady", "--burst-multiplier", "1")
	target := simulated(t, "eu-west-delay", "--burst-multiplier", "1", "--region-delay", "eu-west=150ms")
	fs := compareFindings(t, base, target)
	wantFirst(t, fs, "Network time rose", "in region=eu-west at", "while model time is flat", "look at the network")
}

// TestCompareSlowAuth: half the requests on a gateway auth path 150 ms
// slower: application time, in all requests, with the model flat.
func TestCompareSlowAuth(t *testing.T) {
	t.Parallel()
	base := simulated(t, "steady", "--burst-multiplier", "1")
	target := simulated(t, "slow-auth", "--burst-multiplier", "1", "--slow-auth-rate", "0.5", "--slow-auth-delay", "150ms")
	fs := compareFindings(t, base, target)
	wantFirst(t, fs, "Application time rose", "in all requests", "while model time is flat", "look at the gateway")
}

// TestCompareNoChange: two runs of the same stack with other seeds differ
// only by chance: compare finds no change.
func TestCompareNoChange(t *testing.T) {
	t.Parallel()
	base := simulated(t, "steady", "--burst-multiplier", "1")
	other := simulated(t, "steady-seed6", "--burst-multiplier", "1", "--seed", "6")
	fs := compareFindings(t, base, other)
	if len(fs) != 1 || !strings.HasPrefix(fs[0], "No significant change") {
		t.Errorf("findings:\n%s\nwant only: No significant change", strings.Join(fs, "\n"))
	}
}

// calibrationSeeds are the runs of one stack (2000 requests with their
// burst at 40 s and its backlog, three regions' round trips of about 10,
// 90 and 210 ms) the calibration test compares: every pair of seeds, and
// within each run the two steady stretches before the burst, its two
// gateways and two replicas of one model.
var calibrationSeeds = []string{"11", "12", "13", "14", "15", "16", "17"}

// TestCompareCalibration: where nothing changed, compare states a finding
// in at most 1 of 20 comparisons (42 here: 21 pairs of seeds, 7 pairs of
// windows, 14 pairs of slice values). The stores are simulated once and
// shared by the comparisons.
func TestCompareCalibration(t *testing.T) {
	t.Parallel()
	dirs := make([]string, len(calibrationSeeds))
	t.Run("simulate", func(t *testing.T) {
		for i, seed := range calibrationSeeds {
			t.Run("seed"+seed, func(t *testing.T) {
				t.Parallel()
				dirs[i] = simulated(t, "calibration-"+seed, "--seed", seed, "--requests", "2000")
			})
		}
	})
	if t.Failed() {
		return
	}
	type comparison struct {
		name string
		args []string
	}
	var cases []comparison
	for i := range dirs {
		for j := i + 1; j < len(dirs); j++ {
			cases = append(cases, comparison{fmt.Sprintf("seeds-%s-%s", calibrationSeeds[i], calibrationSeeds[j]), []string{dirs[i], dirs[j]}})
		}
	}
	for i, d := range dirs {
		seed := calibrationSeeds[i]
		cases = append(cases,
			comparison{"windows-" + seed, []string{d, "--baseline", "10:00:00-10:00:20", "--target", "10:00:20-10:00:40"}},
			comparison{"gateways-" + seed, []string{d, "--baseline", "gateway=gw-1", "--target", "gateway=gw-2"}},
			comparison{"replicas-" + seed, []string{d, "--baseline", "replica=llama-3.1-70b-0", "--target", "replica=llama-3.1-70b-1"}})
	}
	var mu sync.Mutex
	var found []string
	t.Run("compare", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				fs := compareFindings(t, c.args...)
				if len(fs) != 1 || !strings.HasPrefix(fs[0], "No significant change") {
					mu.Lock()
					found = append(found, c.name+": "+fs[0])
					mu.Unlock()
				}
			})
		}
	})
	t.Logf("%d of %d comparisons where nothing changed gave a finding", len(found), len(cases))
	if len(found)*20 > len(cases) {
		t.Errorf("%d of %d comparisons where nothing changed gave a finding, want at most 1 in 20:\n%s", len(found), len(cases), strings.Join(found, "\n"))
	}
}
