package simulate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

func testConfig(t testing.TB, n int) Config {
	c := DefaultConfig()
	c.Out = t.TempDir()
	c.Requests = n
	return c
}

func run(t testing.TB, c Config) (*Summary, string) {
	t.Helper()
	var out bytes.Buffer
	sum, err := Run(context.Background(), c, &out)
	if err != nil {
		t.Fatal(err)
	}
	return sum, out.String()
}

func readTruth(t testing.TB, dir string) []TruthRow {
	t.Helper()
	rows, err := parquet.ReadFile[TruthRow](filepath.Join(dir, "truth.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// readLines returns the lines of a log file, un-gzipping .gz files.
func readLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// record is one parsed log line; times are kept as written.
type record map[string]any

// hostTime parses a written time (RFC 3339 string or epoch seconds) into
// Unix seconds.
func hostTime(t testing.TB, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case float64:
		return x
	case string:
		tm, err := time.Parse(time.RFC3339Nano, x)
		if err != nil {
			t.Fatalf("bad time %q: %v", x, err)
		}
		return float64(tm.Unix()) + float64(tm.Nanosecond())/1e9
	}
	t.Fatalf("time has type %T", v)
	return 0
}

// tierRecords parses every intact record of a tier, keyed by request_id, with
// the host that wrote it.
func tierRecords(t testing.TB, dir string, sum *Summary, tier string) (map[string]record, map[string]HostClock) {
	recs := map[string]record{}
	hosts := map[string]HostClock{}
	for i, f := range sum.Files {
		if f.Tier != tier {
			continue
		}
		for _, l := range readLines(t, filepath.Join(dir, f.Path)) {
			var r record
			if json.Unmarshal([]byte(l), &r) != nil {
				continue
			}
			id := r["request_id"].(string)
			recs[id] = r
			hosts[id] = sum.Clocks[i]
		}
	}
	return recs, hosts
}

func dirFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSameSeedSameBytes(t *testing.T) {
	t.Parallel()
	a := testConfig(t, 1500)
	b := a
	b.Out = t.TempDir()
	_, outA := run(t, a)
	_, outB := run(t, b)
	fa, fb := dirFiles(t, a.Out), dirFiles(t, b.Out)
	if len(fa) != 16 || len(fa) != len(fb) {
		t.Fatalf("got %d and %d files, want 16", len(fa), len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs with the same seed", name)
		}
	}
	if strings.ReplaceAll(outA, a.Out, "") != strings.ReplaceAll(outB, b.Out, "") {
		t.Error("printed summaries differ for the same seed")
	}

	c := a
	c.Out, c.Seed = t.TempDir(), a.Seed+1
	run(t, c)
	fc := dirFiles(t, c.Out)
	for _, name := range []string{"truth.csv", "truth.parquet", "clocks.csv", "gateway/gw-1.jsonl"} {
		if bytes.Equal(fa[name], fc[name]) {
			t.Errorf("%s is the same for seeds %d and %d", name, a.Seed, c.Seed)
		}
	}
}

func TestRejectsUnknownFormat(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 10)
	c.Formats = []string{"native", "otel"}
	_, err := Run(context.Background(), c, nil)
	if err == nil || !strings.Contains(err.Error(), `"otel"`) || !strings.Contains(err.Error(), "native") {
		t.Fatalf("err = %v, want one naming otel and the supported native", err)
	}
	c.Formats = nil
	if _, err := Run(context.Background(), c, nil); err != nil {
		t.Fatalf("empty Formats should mean native: %v", err)
	}
}

func TestCanceledContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, testConfig(t, 100), nil); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}

func TestTruthConsistency(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 3000)
	sum, _ := run(t, c)
	rows := readTruth(t, c.Out)
	if len(rows) != c.Requests || sum.TruthRows != c.Requests {
		t.Fatalf("truth has %d rows (summary %d), want %d", len(rows), sum.TruthRows, c.Requests)
	}
	csvLines := readLines(t, filepath.Join(c.Out, "truth.csv"))
	if len(csvLines) != c.Requests+1 {
		t.Fatalf("truth.csv has %d lines, want header + %d", len(csvLines), c.Requests)
	}

	ids := map[string]bool{}
	phases := map[string]int{}
	queue := map[string][]float64{}
	perTok := map[string][]float64{} // llama-3.1-8b model_ms per output token, by phase
	for _, r := range rows {
		if ids[r.RequestID] {
			t.Fatalf("duplicate request_id %s in truth", r.RequestID)
		}
		ids[r.RequestID] = true
		phases[r.Phase]++
		if r.ClientE2EMs == nil || r.GatewayE2EMs == nil {
			t.Fatalf("%s: client/gateway e2e are always known", r.RequestID)
		}
		if r.NetworkMs == nil {
			// Only a client that left before the gateway ended has none.
			if !strings.Contains(r.Imperfection, "error:timeout") && !strings.Contains(r.Imperfection, "error:canceled") {
				t.Errorf("%s: no network time, but the client did not leave (%s)", r.RequestID, r.Imperfection)
			}
			continue
		}
		if r.Replica == "" {
			if r.Status != 429 && !strings.Contains(r.Imperfection, "error:") {
				t.Errorf("%s: not forwarded but status %d", r.RequestID, r.Status)
			}
			if r.HasServer || r.ServerE2EMs != nil || r.QueueMs != nil || r.ApplicationMs != nil || r.ServerTTFTMs != nil {
				t.Errorf("%s: a request that never reached a server has server truth", r.RequestID)
			}
			continue
		}
		sumParts := *r.NetworkMs + *r.ApplicationMs + *r.QueueMs + *r.ModelMs
		if math.Abs(sumParts-*r.ClientE2EMs) > 1e-6 {
			t.Errorf("%s: components sum to %v, client_e2e is %v", r.RequestID, sumParts, *r.ClientE2EMs)
		}
		if *r.QueueMs < 0 || *r.ModelMs <= 0 || *r.ServerE2EMs <= 0 {
			t.Errorf("%s: queue %v model %v server %v", r.RequestID, *r.QueueMs, *r.ModelMs, *r.ServerE2EMs)
		}
		clean := r.Imperfection == "" || !strings.Contains(r.Imperfection, "error:")
		if clean && (*r.NetworkMs <= 0 || *r.ApplicationMs <= 0) {
			t.Errorf("%s: network %v application %v", r.RequestID, *r.NetworkMs, *r.ApplicationMs)
		}
		if !r.Streamed && (r.ClientTTFTMs != nil || r.TTFTNetworkMs != nil || r.TPSUser != nil) {
			t.Errorf("%s: client TTFT on a non-streamed request", r.RequestID)
		}
		if (r.ServerTTFTMs != nil) != !strings.Contains(r.Imperfection, "error:5xx") {
			t.Errorf("%s: server TTFT %v with imperfection %q: want it exactly when the server completed", r.RequestID, r.ServerTTFTMs, r.Imperfection)
		}
		if r.ClientTTFTMs != nil {
			s := *r.TTFTNetworkMs + *r.TTFTApplicationMs + *r.TTFTQueueMs + *r.TTFTModelMs
			if math.Abs(s-*r.ClientTTFTMs) > 1e-6 {
				t.Errorf("%s: TTFT components sum to %v, client_ttft is %v", r.RequestID, s, *r.ClientTTFTMs)
			}
			if *r.TTFTQueueMs != *r.QueueMs || *r.ClientTTFTMs > *r.ClientE2EMs {
				t.Errorf("%s: ttft_queue %v queue %v", r.RequestID, *r.TTFTQueueMs, *r.QueueMs)
			}
		}
		if r.Streamed && r.Status == 200 && r.TPSUser == nil && r.OutputTokens > 1 {
			t.Errorf("%s: streamed 200 without tps_user", r.RequestID)
		}
		if r.Status == 200 {
			queue[r.Phase] = append(queue[r.Phase], *r.QueueMs)
			if r.Model == "llama-3.1-8b" && r.OutputTokens >= 2 {
				perTok[r.Phase] = append(perTok[r.Phase], *r.ModelMs/float64(r.OutputTokens))
			}
		}
	}
	t.Logf("phases %v", phases)
	for _, p := range []string{"steady", "burst", "cold"} {
		if phases[p] == 0 {
			t.Fatalf("no %s requests", p)
		}
	}
	// The cold replica's first ColdRequests admissions are the cold phase,
	// and so are the requests that waited in its queue behind them.
	if phases["cold"] < c.ColdRequests {
		t.Errorf("%d cold requests, want at least %d", phases["cold"], c.ColdRequests)
	}
	mb, ms := median(queue["burst"]), median(queue["steady"])
	t.Logf("median queue_ms burst %.1f steady %.1f", mb, ms)
	if !(mb > 100 && mb > 10*ms) {
		t.Errorf("burst median queue %.1f ms is not clearly above steady %.1f ms", mb, ms)
	}
	pc, ps := median(perTok["cold"]), median(perTok["steady"])
	t.Logf("llama-3.1-8b median model_ms per token: cold %.2f steady %.2f", pc, ps)
	if !(pc > 2*ps) {
		t.Errorf("cold model_ms per token %.2f not clearly above steady %.2f", pc, ps)
	}
}

// TestClocks parses written lines back and checks that durations within one
// record equal the truth (scaled by the host's drift), while differences
// across tiers are off by exactly the hosts' offsets.
func TestClocks(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 2000)
	sum, _ := run(t, c)
	rows := readTruth(t, c.Out)
	cli, cliHost := tierRecords(t, c.Out, sum, "client")
	gw, gwHost := tierRecords(t, c.Out, sum, "gateway")
	srv, srvHost := tierRecords(t, c.Out, sum, "server")
	formats := map[string]bool{}
	for _, h := range sum.Clocks {
		formats[h.Format] = true
		if h.Offset.Abs() > c.MaxClockOffset || math.Abs(h.DriftPPM) > c.MaxDriftPPM/2 {
			t.Errorf("%s: offset %v drift %v out of bounds", h.Host, h.Offset, h.DriftPPM)
		}
	}
	if len(formats) != 3 {
		t.Errorf("hosts use formats %v, want all three", formats)
	}

	const tol = 0.01 // ms
	// within: host-clock difference a→b in one record, in ms, with drift
	// removed.
	within := func(r record, h HostClock, a, b string) float64 {
		d := (hostTime(t, r[b]) - hostTime(t, r[a])) * 1000
		return d / (1 + h.DriftPPM*1e-6)
	}
	epoch := float64(c.Epoch.UnixNano()) / 1e9
	// skew is what host h adds to true time t (Unix seconds), in ms.
	skew := func(h HostClock, at float64) float64 {
		return float64(h.Offset)/1e6 + h.DriftPPM*1e-6*(at-epoch)*1000
	}
	checked, offsetsSeen, errored := 0, 0, 0
	for _, tr := range rows {
		cr, gr, sr := cli[tr.RequestID], gw[tr.RequestID], srv[tr.RequestID]
		ch, gh, sh := cliHost[tr.RequestID], gwHost[tr.RequestID], srvHost[tr.RequestID]
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > tol {
				t.Errorf("%s %s: written %.4f ms, truth %.4f ms", tr.RequestID, what, got, want)
			}
		}
		// Within one record, for every intact record (errors included).
		if cr != nil {
			near("client e2e", within(cr, ch, "start", "end"), *tr.ClientE2EMs)
			if _, ok := cr["first_token"]; ok != (tr.ClientTTFTMs != nil) {
				t.Errorf("%s: client first_token written %v, truth client_ttft %v", tr.RequestID, ok, tr.ClientTTFTMs)
			} else if ok {
				near("client ttft", within(cr, ch, "start", "first_token"), *tr.ClientTTFTMs)
				if tr.TPSUser != nil {
					tps := float64(tr.ClientOutputTokens-1) / (within(cr, ch, "first_token", "end") / 1000)
					if math.Abs(tps-*tr.TPSUser) > 0.01*(*tr.TPSUser) {
						t.Errorf("%s: tps_user from the record %.3f, truth %.3f", tr.RequestID, tps, *tr.TPSUser)
					}
				}
			}
			if cr["output_tokens"] != float64(tr.ClientOutputTokens) || cr["status"] != float64(tr.Status) {
				t.Errorf("%s: client record %v disagrees with truth", tr.RequestID, cr)
			}
		}
		if gr != nil {
			near("gateway e2e", within(gr, gh, "start", "end"), *tr.GatewayE2EMs)
		}
		if sr != nil {
			near("server e2e", within(sr, sh, "arrival", "end"), *tr.ServerE2EMs)
			near("queue", within(sr, sh, "arrival", "scheduled"), *tr.QueueMs)
			near("model", within(sr, sh, "scheduled", "end"), *tr.ModelMs)
			if tr.ServerTTFTMs != nil {
				near("server ttft", within(sr, sh, "arrival", "first_token"), *tr.ServerTTFTMs)
			}
		}
		if cr == nil || gr == nil || sr == nil {
			continue
		}
		if strings.Contains(tr.Imperfection, "error:") {
			errored++
			continue
		}
		if !tr.HasClient || !tr.HasGateway || !tr.HasServer {
			t.Fatalf("%s: intact records in files but truth says otherwise", tr.RequestID)
		}
		// Across tiers: gateway start − client start = request leg, and
		// client end − gateway end = response leg, each plus the two hosts'
		// skew; with the skew removed they add up to the true network time.
		at := float64(tr.ClientStart.UnixNano()) / 1e9
		rawUp := (hostTime(t, gr["start"]) - hostTime(t, cr["start"])) * 1000
		up := rawUp - (skew(gh, at) - skew(ch, at))
		endAt := at + *tr.ClientE2EMs/1000
		down := (hostTime(t, cr["end"])-hostTime(t, gr["end"]))*1000 - (skew(ch, endAt) - skew(gh, endAt))
		near("request leg + response leg", up+down, *tr.NetworkMs)
		if up <= 0 || down <= 0 {
			t.Errorf("%s: legs %.3f and %.3f ms after removing offsets", tr.RequestID, up, down)
		}
		// Gateway → server hop: positive and small once offsets are removed.
		hop := (hostTime(t, sr["arrival"])-hostTime(t, gr["upstream_start"]))*1000 - (skew(sh, at) - skew(gh, at))
		if hop <= 0 || hop > 5 {
			t.Errorf("%s: gateway→server hop %.3f ms after removing offsets", tr.RequestID, hop)
		}
		if math.Abs(rawUp-up) > 100 {
			offsetsSeen++
		}
		checked++
	}
	if checked < 1500 || offsetsSeen < checked/2 || errored < 20 {
		t.Fatalf("checked %d requests, %d with offsets over 100 ms, %d errored", checked, offsetsSeen, errored)
	}
}

// TestImperfectionCounts counts what is really in the files and compares it
// with what Run reported, printed and recorded in truth.
func TestImperfectionCounts(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 3000)
	sum, printed := run(t, c)
	rows := readTruth(t, c.Out)

	for _, tier := range tierNames {
		lines, bad, dups, records := 0, 0, 0, 0
		seen := map[string]bool{}
		ids := map[string]bool{}
		for _, f := range sum.Files {
			if f.Tier != tier {
				continue
			}
			fl := readLines(t, filepath.Join(c.Out, f.Path))
			if len(fl) != f.Lines {
				t.Errorf("%s: %d lines, summary says %d", f.Path, len(fl), f.Lines)
			}
			for _, l := range fl {
				lines++
				var r record
				if json.Unmarshal([]byte(l), &r) != nil {
					bad++
					continue
				}
				if seen[l] {
					dups++
					continue
				}
				seen[l] = true
				records++
				ids[r["request_id"].(string)] = true
			}
		}
		if bad != sum.Imperfection("truncated:"+tier) || dups != sum.Imperfection("duplicated:"+tier) {
			t.Errorf("%s: %d unparsable and %d duplicate lines, reported %d and %d", tier, bad, dups,
				sum.Imperfection("truncated:"+tier), sum.Imperfection("duplicated:"+tier))
		}
		if bad == 0 || dups == 0 {
			t.Errorf("%s: no truncated or duplicated lines at the default rates", tier)
		}
		var ts TierStat
		for _, x := range sum.Tiers {
			if x.Tier == tier {
				ts = x
			}
		}
		if ts.Lines != lines || ts.Records != records {
			t.Errorf("%s: files have %d lines %d records, summary %+v", tier, lines, records, ts)
		}
		// Truth: has_<tier> is exactly "an intact record is in the files";
		// every request that reached the tier without one was lost or truncated.
		lost, reached, has := 0, 0, 0
		for _, r := range rows {
			h := map[string]bool{"client": r.HasClient, "gateway": r.HasGateway, "server": r.HasServer}[tier]
			if h != ids[r.RequestID] {
				t.Fatalf("%s %s: has=%v but in files=%v", tier, r.RequestID, h, ids[r.RequestID])
			}
			if tier != "server" || r.Replica != "" {
				reached++
			}
			if h {
				has++
			}
			if strings.Contains(r.Imperfection, "lost:"+tier) {
				lost++
			}
		}
		if lost != sum.Imperfection("lost:"+tier) || reached-has != lost+bad {
			t.Errorf("%s: truth lost %d, reported %d; reached %d, written %d, truncated %d", tier, lost,
				sum.Imperfection("lost:"+tier), reached, has, bad)
		}
	}

	// Errors: truth, files and summary agree.
	cli, _ := tierRecords(t, c.Out, sum, "client")
	srv, _ := tierRecords(t, c.Out, sum, "server")
	kinds := map[string]int{}
	for _, r := range rows {
		for _, k := range strings.Split(r.Imperfection, ";") {
			if k != "" {
				kinds[k]++
			}
		}
		cr, sr := cli[r.RequestID], srv[r.RequestID]
		switch {
		case strings.Contains(r.Imperfection, "error:timeout"):
			if r.Status != 408 || cr != nil && (cr["error"] != "timeout" || cr["status"] != 408.0) {
				t.Errorf("%s: timeout but status %d, record %v", r.RequestID, r.Status, cr)
			}
		case strings.Contains(r.Imperfection, "error:canceled"):
			if r.Status != 0 || cr != nil && cr["error"] != "canceled" {
				t.Errorf("%s: cancel but status %d, record %v", r.RequestID, r.Status, cr)
			}
		case strings.Contains(r.Imperfection, "error:5xx"):
			if r.Status < 500 || sr != nil && sr["status"].(float64) < 500 {
				t.Errorf("%s: 5xx but status %d, record %v", r.RequestID, r.Status, sr)
			}
		case strings.Contains(r.Imperfection, "rejected:429"):
			if r.Status != 429 || r.Replica != "" {
				t.Errorf("%s: 429 but status %d replica %q", r.RequestID, r.Status, r.Replica)
			}
		default:
			if r.Status != 200 {
				t.Errorf("%s: status %d without an error imperfection", r.RequestID, r.Status)
			}
		}
	}
	for _, ic := range sum.Imperfections {
		if kinds[ic.Kind] != ic.Count {
			t.Errorf("%s: %d in truth, reported %d", ic.Kind, kinds[ic.Kind], ic.Count)
		}
		if ic.Count == 0 {
			t.Errorf("%s: none injected at the default rates", ic.Kind)
		}
		if !strings.Contains(printed, ic.Kind+"  ") || !containsCount(printed, ic.Kind, ic.Count) {
			t.Errorf("printed summary lacks %q %d:\n%s", ic.Kind, ic.Count, printed)
		}
	}
}

func containsCount(printed, kind string, n int) bool {
	for _, l := range strings.Split(printed, "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == kind && f[1] == strconv.Itoa(n) {
			return true
		}
	}
	return false
}

// TestInFlightBounded checks the structural memory bound: the most requests
// held at once does not grow with the number of requests generated.
func TestInFlightBounded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("generates 200k requests")
	}
	small, _ := run(t, testConfig(t, 20_000))
	c := testConfig(t, 200_000)
	c.GzipOneServer = false
	large, _ := run(t, c)
	t.Logf("max in flight: %d for 20k, %d for 200k", small.MaxInFlight, large.MaxInFlight)
	if large.MaxInFlight > small.MaxInFlight*3/2+100 {
		t.Errorf("in-flight state grows with N: %d for 20k, %d for 200k", small.MaxInFlight, large.MaxInFlight)
	}
}

func TestStaleCompressionVariantRemoved(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 50)
	c.GzipOneServer = false
	sum, _ := run(t, c)
	last := sum.Files[len(sum.Files)-1].Path
	c.GzipOneServer = true
	run(t, c)
	if _, err := os.Stat(filepath.Join(c.Out, last)); !os.IsNotExist(err) {
		t.Fatalf("%s from the earlier run is still there beside its .gz: %v", last, err)
	}
	if _, err := os.Stat(filepath.Join(c.Out, last+".gz")); err != nil {
		t.Fatal(err)
	}
}

// Each warm-up kind slows only the late replica's first requests, each in
// its own way: decode per token, a long first prefill, a model load in the
// first request with a queue behind it, or a queue before it serves.
func TestColdKinds(t *testing.T) {
	t.Parallel()
	for _, kind := range ColdKinds {
		t.Run(kind, func(t *testing.T) {
			c := testConfig(t, 1500)
			c.ColdKinds = []string{kind}
			c.ColdDelay = 4 * time.Second
			run(t, c)
			var cold []TruthRow
			for _, r := range readTruth(t, c.Out) {
				if r.Phase == "cold" {
					if r.Replica != "llama-3.1-8b-2" {
						t.Fatalf("%s: cold on %s, not the late replica", r.RequestID, r.Replica)
					}
					cold = append(cold, r)
				}
			}
			if len(cold) < 3 {
				t.Fatalf("%d cold requests", len(cold))
			}
			slices.SortFunc(cold, func(a, b TruthRow) int { return a.ClientStart.Compare(b.ClientStart) })
			first := cold[0]
			switch kind {
			case ColdDecode:
				if len(cold) < c.ColdRequests {
					t.Errorf("%d cold requests, want >= %d", len(cold), c.ColdRequests)
				}
			case ColdPrefill, ColdLoad:
				// The first request's prefill holds the extra 4 s.
				if first.TTFTModelMs == nil || *first.TTFTModelMs < 4000 {
					t.Errorf("first cold request: ttft_model %v ms, want >= 4000", first.TTFTModelMs)
				}
			case ColdQueue:
				if first.QueueMs == nil || *first.QueueMs < 1000 {
					t.Errorf("first cold request: queue %v ms, want seconds", first.QueueMs)
				}
			}
			if kind == ColdLoad || kind == ColdQueue {
				for _, r := range cold[1:] {
					if r.QueueMs != nil && *r.QueueMs <= 0 {
						t.Errorf("%s: cold without waiting", r.RequestID)
					}
				}
			}
		})
	}
}

// Config.Tiers keeps only the named tiers' logs: the other tiers' files are
// gone, and every file kept, the truth included, has the bytes of the run
// that keeps all three.
func TestTiersKeepsOnlyNamedLogs(t *testing.T) {
	t.Parallel()
	all := testConfig(t, 800)
	some := all
	some.Out, some.Tiers = t.TempDir(), []string{"client", "gateway"}
	run(t, all)
	sum, _ := run(t, some)
	fa, fs := dirFiles(t, all.Out), dirFiles(t, some.Out)
	kept := 0
	for name, data := range fa {
		if strings.HasPrefix(name, "server/") {
			if _, ok := fs[name]; ok {
				t.Errorf("%s kept without the server tier", name)
			}
			continue
		}
		if !bytes.Equal(data, fs[name]) {
			t.Errorf("%s differs from the run with every tier", name)
		}
		kept++
	}
	if kept < 8 || len(fs) != kept {
		t.Errorf("%d files kept of %d, %d written", kept, len(fa), len(fs))
	}
	for _, f := range sum.Files {
		if f.Tier == "server" {
			t.Errorf("the summary lists %s", f.Path)
		}
	}
	bad := some
	bad.Out, bad.Tiers = t.TempDir(), []string{"clients"}
	if _, err := Run(context.Background(), bad, nil); err == nil || !strings.Contains(err.Error(), `"clients"`) {
		t.Errorf("Tiers [clients]: %v, want an error naming it", err)
	}
}

// TestErrorMix: each request draws one way of failing from Config.ErrorMix.
// The 429s are the mix's alone (no rate limit); a 503 is answered at once,
// with no queue; 500s and 503s reach a server, 429s never do; a 408 ends at
// the client's short deadline. The shares come out within a few standard
// errors (n = 6000; a 408 only when the answer would come later).
func TestErrorMix(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 6000)
	c.ErrorMix = map[int]float64{500: 0.04, 503: 0.04, 429: 0.03, 408: 0.05}
	run(t, c)
	rows := readTruth(t, c.Out)
	by := map[int32]int{}
	for _, r := range rows {
		by[r.Status]++
		switch r.Status {
		case 503:
			if r.Replica == "" || r.QueueMs == nil || *r.QueueMs != 0 || r.ServerE2EMs == nil || *r.ServerE2EMs > 20 {
				t.Fatalf("%s: 503 on %q, queue %v, server E2E %v: want answered at once by a replica", r.RequestID, r.Replica, r.QueueMs, r.ServerE2EMs)
			}
		case 429:
			if r.Replica != "" || r.ServerE2EMs != nil {
				t.Fatalf("%s: a 429 reached replica %q", r.RequestID, r.Replica)
			}
		case 408:
			if r.ClientE2EMs == nil || *r.ClientE2EMs < 99 || *r.ClientE2EMs > 801 {
				t.Fatalf("%s: 408 after %v ms, want the 100-800 ms deadline", r.RequestID, r.ClientE2EMs)
			}
		case 200, 500:
		default:
			t.Fatalf("%s: status %d, which the mix does not hold", r.RequestID, r.Status)
		}
	}
	n := float64(len(rows))
	for _, w := range []struct {
		status int32
		share  float64
	}{{500, 0.04}, {503, 0.04}, {429, 0.03}} {
		got := float64(by[w.status]) / n
		if se := math.Sqrt(w.share * (1 - w.share) / n); math.Abs(got-w.share) > 4*se {
			t.Errorf("status %d: share %.4f, want %.2f ± %.4f", w.status, got, w.share, 4*se)
		}
	}
	if got := float64(by[408]) / n; got < 0.01 || got > 0.05 {
		t.Errorf("status 408: share %.4f, want some of the 5%% with a short deadline", got)
	}
	t.Logf("statuses of %d requests: %v", len(rows), by)
}
