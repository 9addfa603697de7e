package compare

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/ingest"
	_ "github.com/infertrace/infertrace/ingest/formats"
	"github.com/infertrace/infertrace/simulate"
)

var update = flag.Bool("update", false, "rewrite the golden comparisons in testdata/")

// simStores are the stores of the golden comparisons, simulated, ingested
// and analyzed once per test binary (TestMain removes them).
var simStores struct {
	once sync.Once
	root string
	dirs map[string]string // name -> analyzed store
	err  error
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if simStores.root != "" {
		os.RemoveAll(simStores.root)
	}
	os.Exit(code)
}

// simStoreConfigs: two runs of one stack (2,000 requests with its burst
// at 40 s and its backlog), and one whose eu-west clients are 40 ms
// further away, so that the golden comparisons hold findings as well as
// noise.
var simStoreConfigs = map[string]func(*simulate.Config){
	"seed11": func(c *simulate.Config) { c.Seed = 11 },
	"seed12": func(c *simulate.Config) { c.Seed = 12 },
	"seed13-euwest": func(c *simulate.Config) {
		c.Seed = 13
		c.RegionDelay = map[string]time.Duration{"eu-west": 40 * time.Millisecond}
	},
}

// simStore returns the analyzed store of simStoreConfigs[name].
func simStore(t testing.TB, name string) string {
	t.Helper()
	simStores.once.Do(func() {
		simStores.root, simStores.err = os.MkdirTemp("", "infertrace-compare-")
		if simStores.err != nil {
			return
		}
		simStores.dirs = map[string]string{}
		for n, set := range simStoreConfigs {
			dir, err := simulateStore(filepath.Join(simStores.root, n), set)
			if err != nil {
				simStores.err = fmt.Errorf("%s: %w", n, err)
				return
			}
			simStores.dirs[n] = dir
		}
	})
	if simStores.err != nil {
		t.Fatal(simStores.err)
	}
	return simStores.dirs[name]
}

// simulateStore simulates 2,000 requests (no late replica) into root/sim,
// ingests their logs into root/out and analyzes it, as the CLI's
// simulate, ingest and analyze do.
func simulateStore(root string, set func(*simulate.Config)) (string, error) {
	ctx := context.Background()
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.ColdKinds = filepath.Join(root, "sim"), 2000, nil
	set(&cfg)
	if _, err := simulate.Run(ctx, cfg, io.Discard); err != nil {
		return "", fmt.Errorf("simulate: %w", err)
	}
	out := filepath.Join(root, "out")
	opt := ingest.Options{Out: out, Log: io.Discard}
	for _, tier := range []ingest.Tier{ingest.Client, ingest.Gateway, ingest.Server} {
		in, err := ingest.ParseInput(tier, "native:"+filepath.Join(cfg.Out, string(tier)))
		if err != nil {
			return "", err
		}
		opt.Inputs = append(opt.Inputs, in)
	}
	if _, err := ingest.Run(ctx, opt); err != nil {
		return "", fmt.Errorf("ingest: %w", err)
	}
	if _, err := analyze.Run(ctx, out); err != nil {
		return "", fmt.Errorf("analyze: %w", err)
	}
	return out, nil
}

// goldenComparison is one comparison the golden test pins.
type goldenComparison struct {
	name string
	opts func(t testing.TB) Options
}

func at(hms string) *time.Time {
	t, err := time.Parse(time.DateTime, "2026-11-30 "+hms)
	if err != nil {
		panic(err)
	}
	return &t
}

// goldenComparisons are the kinds of comparison compare makes: two
// stores, two windows of one, two values of a slice column, with the
// default slicing, several columns, and one column that is also one of
// CompareDims.
var goldenComparisons = []goldenComparison{
	{"stores", func(t testing.TB) Options {
		return Options{Baseline: CompareSide{Dir: simStore(t, "seed11")}, Target: CompareSide{Dir: simStore(t, "seed12")}}
	}},
	{"euwest", func(t testing.TB) Options {
		return Options{Baseline: CompareSide{Dir: simStore(t, "seed11")}, Target: CompareSide{Dir: simStore(t, "seed13-euwest")},
			By: []string{"region", "prompt_bucket", "status"}}
	}},
	{"windows", func(t testing.TB) Options {
		d := simStore(t, "seed12")
		return Options{Baseline: CompareSide{Dir: d, From: at("10:00:00"), To: at("10:00:20")},
			Target: CompareSide{Dir: d, From: at("10:00:20"), To: at("10:00:40")}}
	}},
	{"gateways", func(t testing.TB) Options {
		d := simStore(t, "seed13-euwest")
		return Options{Baseline: CompareSide{Dir: d, Column: "gateway", Value: "gw-1"},
			Target: CompareSide{Dir: d, Column: "gateway", Value: "gw-2"}}
	}},
	{"replicas", func(t testing.TB) Options {
		d := simStore(t, "seed11")
		return Options{Baseline: CompareSide{Dir: d, Column: "replica", Value: "llama-3.1-70b-0"},
			Target: CompareSide{Dir: d, Column: "replica", Value: "llama-3.1-70b-1"}, By: []string{"region"}}
	}},
}

// comparisonText is everything cmp holds, but the stores' paths
// (temporary directories), as text: a header, then a line per slice and
// one per quantile change, each figure with all its digits.
func comparisonText(cmp *Comparison) []byte {
	var b bytes.Buffer
	label := func(s CompareSide, l string) string {
		if s.Column == "" && s.From == nil && s.To == nil {
			return "DIR"
		}
		return l
	}
	fmt.Fprintf(&b, "baseline %s: %d requests\ntarget %s: %d requests\nby %s\n%d of %d compared significant\nverdict %v\n",
		label(cmp.Baseline, cmp.BaselineLabel), cmp.BaselineN, label(cmp.Target, cmp.TargetLabel), cmp.TargetN,
		strings.Join(cmp.By, ","), cmp.Significant, cmp.Compared, cmp.Verdict != nil)
	b.WriteString("# P\tbaseline_n\ttarget_n\tbaseline\ttarget\tdelta\tlo\thi\tsignificant\ttoo_few\tstrong\tlo_indep\thi_indep\tbaseline_d\ttarget_d\n")
	num := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	for _, part := range []struct {
		name   string
		slices []CompareSlice
	}{{"slice", cmp.Slices}, {"dim", cmp.Dims}} {
		for _, s := range part.slices {
			fmt.Fprintf(&b, "%s %q all=%v columns=%q values=%q: %d -> %d requests\n", part.name, s.Label, s.All, s.Columns, s.Values, s.BaselineN, s.TargetN)
			for _, m := range s.Metrics {
				fmt.Fprintf(&b, "\t%s %q %s higher-is-better=%v\n", m.Metric, m.Name, m.Unit, m.HigherIsBetter)
				for _, q := range m.Points {
					fmt.Fprintf(&b, "\t\t%g\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%v\t%v\t%v\t%s\t%s\t%s\t%s\n", q.P, q.BaselineN, q.TargetN,
						num(q.Baseline), num(q.Target), num(q.Delta), num(q.Lo), num(q.Hi), q.Significant, q.TooFew, q.Strong,
						num(q.LoIndep), num(q.HiIndep), num(q.BaselineD), num(q.TargetD))
				}
			}
		}
	}
	return b.Bytes()
}

// TestCompareGolden pins everything Run returns for each of
// goldenComparisons on simulated stores: the slices, every quantile
// change with its interval, design effects, significance and the counts
// (go test ./compare -run TestCompareGolden -update rewrites
// testdata/golden/NAME.txt; read the diff).
func TestCompareGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenComparisons {
		t.Run(c.name, func(t *testing.T) {
			cmp, err := Run(context.Background(), c.opts(t))
			if err != nil {
				t.Fatal(err)
			}
			if len(cmp.Slices) < 2 || len(cmp.Dims) < 2 {
				t.Fatalf("%d slices and %d one-column slices, want the simulated stack's several", len(cmp.Slices), len(cmp.Dims))
			}
			got := comparisonText(cmp)
			golden := filepath.Join("testdata", "golden", c.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./compare -run TestCompareGolden -update creates it)", err)
			}
			if diff := goldenDiff(got, want); diff != "" {
				t.Errorf("comparison %s differs from %s at line %s (go test ./compare -run TestCompareGolden -update rewrites it; read the diff)", c.name, golden, diff)
			}
		})
	}
}

// goldenDiff says where got and want first differ, "" when they do not:
// the line's number and both versions of it. Every figure must be equal
// but the design effects (the last two columns of a quantile's line),
// within a relative 1e-12: the goldens were written when compare.sql
// summed the squares of D in floating point, in whatever order DuckDB's
// threads met the blocks, so that D varied in its last bits from run to
// run. It comes from sums of integers now, exact; the goldens stand
// unchanged, to show that the figures did not change with it.
func goldenDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) && !sameUpToDesign(string(gl), string(wl)) {
			return fmt.Sprintf("%d: got %q, want %q", i+1, bytes.TrimSpace(gl), bytes.TrimSpace(wl))
		}
	}
	return ""
}

// sameUpToDesign reports whether two quantile lines are equal but for
// design effects within a relative 1e-12 of each other.
func sameUpToDesign(got, want string) bool {
	g, w := strings.Split(got, "\t"), strings.Split(want, "\t")
	if len(g) != 17 || len(w) != 17 || g[0] != "" || g[1] != "" {
		return false
	}
	for i := range g {
		if g[i] == w[i] {
			continue
		}
		if i < 15 {
			return false
		}
		a, errA := strconv.ParseFloat(g[i], 64)
		b, errB := strconv.ParseFloat(w[i], 64)
		if errA != nil || errB != nil || math.Abs(a-b) > 1e-12*math.Abs(b) {
			return false
		}
	}
	return true
}

// TestGoldenDiff: goldenDiff lets a design effect vary in its last bits
// and nothing else.
func TestGoldenDiff(t *testing.T) {
	t.Parallel()
	line := "\t\t0.5\t1963\t1957\t2094.545\t2311.492\t216.947\t-5121.078\t4829.371\tfalse\tfalse\tfalse\t-189.006\t586.18\t%s\t74.99204672828586\n"
	want := []byte("header\n" + fmt.Sprintf(line, "86.29219515192725"))
	for _, c := range []struct {
		got  string
		same bool
	}{
		{"header\n" + fmt.Sprintf(line, "86.29219515192725"), true},
		{"header\n" + fmt.Sprintf(line, "86.29219515192723"), true},
		{"header\n" + fmt.Sprintf(line, "86.2921951"), false},
		{"header\n" + strings.Replace(fmt.Sprintf(line, "86.29219515192725"), "2311.492", "2311.4920000000002", 1), false},
		{"header\n" + strings.Replace(fmt.Sprintf(line, "86.29219515192725"), "false", "true", 1), false},
		{"Header\n" + fmt.Sprintf(line, "86.29219515192725"), false},
		{"header\n" + fmt.Sprintf(line, "86.29219515192725") + "more\n", false},
	} {
		if diff := goldenDiff([]byte(c.got), want); (diff == "") != c.same {
			t.Errorf("goldenDiff(%q) = %q, want same %v", c.got, diff, c.same)
		}
	}
}
