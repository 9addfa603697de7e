package analyze

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
)

// PartsDir is the directory of DIR into which analyze --partition I/N
// writes its part, PartName(I, N): the requests of share I of N of the
// windows Partitions plans (docs/partitions.md).
const PartsDir = "requests"

// PartName is the file name of part i of n in PartsDir.
func PartName(i, n int) string { return fmt.Sprintf("part-%d-of-%d.parquet", i, n) }

var partRE = regexp.MustCompile(`^part-(\d+)-of-(\d+)\.parquet$`)

// partKey and partWindowKey are the keys of a part's key-value metadata
// that hold "I/N" and the window of its share ("" for an empty share).
const (
	partKey       = "infertrace_partition"
	partWindowKey = "infertrace_partition_window"
)

// PartPeriod is the period by which RunPart plans the windows (Partitions'
// every): a day.
const PartPeriod = 24 * time.Hour

// RunPart analyzes share i of n of the windows Partitions plans for dir
// (Share) and writes its requests to dir/requests/part-I-of-N.parquet (by a
// rename), with the manifest's SHA-256, i/n and the share's window in its
// metadata. A share that holds no window writes a part without rows, so
// that a reader can check that all n parts are there. The n parts of one
// manifest hold together the rows of the whole analysis (Run). RunPart
// removes dir/requests.parquet, parts of another n, and the files made
// from them (Derived).
func RunPart(ctx context.Context, dir string, res duck.Resources, i, n int) (*RunStats, error) {
	if _, err := manifestSum(dir); err != nil {
		return nil, err
	}
	if n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("partition %d/%d: want 0 <= I < N", i, n)
	}
	p, err := partPlan(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	w, ok, err := Share(p.Windows, i, n)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, PartsDir), 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", PartName(i, n), err)
	}
	out := filepath.Join(dir, PartsDir, PartName(i, n))
	kv := ", " + partKey + ": " + duck.Quote(fmt.Sprintf("%d/%d", i, n))
	if ok {
		kv += ", " + partWindowKey + ": " + duck.Quote(w.encode())
	} else {
		kv += ", " + partWindowKey + ": ''"
	}
	clear := func() ([]string, error) { return removeOtherParts(dir, n) }
	if ok && p.Facts {
		st, err := runFactsTo(ctx, dir, res, shares(p.Windows, n), i, out, kv, clear, nil)
		if errors.Is(err, ErrNoFacts) {
			return nil, fmt.Errorf("%w\n(the store's partitions cut inside a session: each part needs the others' facts; analyze with --facts each part of %d first)", err, n)
		}
		return st, err
	}
	return runTo(ctx, dir, res, w, !ok, out, kv, clear)
}

// WritePartFacts writes the facts of share i of n of the windows PlanInside
// plans for dir (WriteFacts), which each share's RunPart reads when the
// plan cuts inside a session; false, writing nothing, when it does not (no
// part needs them) or share i holds no window.
func WritePartFacts(ctx context.Context, dir string, res duck.Resources, i, n int) (bool, error) {
	if _, err := manifestSum(dir); err != nil {
		return false, err
	}
	if n < 1 || i < 0 || i >= n {
		return false, fmt.Errorf("partition %d/%d: want 0 <= I < N", i, n)
	}
	p, err := partPlan(ctx, dir, res)
	if err != nil {
		return false, err
	}
	ss := shares(p.Windows, n)
	if !p.Facts || i >= len(ss) {
		return false, nil
	}
	return true, WriteFacts(ctx, dir, res, ss, i)
}

// PlanFile is the file in FactsDir where the parts' plan is kept: each of
// the parts' jobs (and their --facts jobs) would otherwise plan again, reading
// every key of the store.
const PlanFile = "plan.json"

// planVersion changes when the rules of PlanInside do, so that a kept plan
// of other rules is made again.
const planVersion = 1

type keptPlan struct {
	Version  int
	Manifest string
	Period   string
	Plan     Plan
}

// partPlan is PlanInside's plan of dir by PartPeriod, as kept in
// FactsDir/PlanFile for the store's manifest, else made and kept (written
// beside and renamed: jobs that make it at once write the same plan).
func partPlan(ctx context.Context, dir string, res duck.Resources) (Plan, error) {
	sum, err := manifestSum(dir)
	if err != nil {
		return Plan{}, err
	}
	path := filepath.Join(dir, FactsDir, PlanFile)
	if b, err := os.ReadFile(path); err == nil {
		var k keptPlan
		if json.Unmarshal(b, &k) == nil && k.Version == planVersion && k.Manifest == sum &&
			k.Period == PartPeriod.String() && len(k.Plan.Windows) > 0 {
			return k.Plan, nil
		}
	}
	duck.Step(ctx, "planning partitions")
	p, err := PlanInside(ctx, dir, res, PartPeriod)
	if err != nil {
		return Plan{}, err
	}
	b, err := json.Marshal(keptPlan{Version: planVersion, Manifest: sum, Period: PartPeriod.String(), Plan: p})
	if err != nil {
		return Plan{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Plan{}, fmt.Errorf("keep the plan: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), PlanFile+".*.tmp")
	if err != nil {
		return Plan{}, fmt.Errorf("keep the plan: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return Plan{}, fmt.Errorf("keep the plan: %w", err)
	}
	return p, nil
}

// shares are the shares of ws among n jobs that hold a window (Share), in
// order: the first min(n, len(ws)) shares, which adjoin.
func shares(ws []Window, n int) []Window {
	var ss []Window
	for i := 0; i < n; i++ {
		w, ok, _ := Share(ws, i, n)
		if !ok {
			break
		}
		ss = append(ss, w)
	}
	return ss
}

// removeOtherParts removes dir/requests.parquet, the parts in
// dir/requests/ of another n than n, and the Derived files; it returns the
// paths of those that were there.
func removeOtherParts(dir string, n int) ([]string, error) {
	var removed []string
	whole := filepath.Join(dir, RequestsFile)
	if err := os.Remove(whole); err == nil {
		removed = append(removed, whole)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("remove %s: %w", whole, err)
	}
	parts, err := listParts(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		if p.n != n {
			if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("remove %s: %w", p.path, err)
			}
			removed = append(removed, p.path)
		}
	}
	d, err := removeDerived(dir)
	return append(removed, d...), err
}

// removeParts removes dir/requests/'s parts (a whole analysis supersedes
// them) and returns their paths.
func removeParts(dir string) ([]string, error) {
	parts, err := listParts(dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, p := range parts {
		if err := os.Remove(p.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("remove %s: %w", p.path, err)
		}
		removed = append(removed, p.path)
	}
	return removed, nil
}

type part struct {
	path string
	i, n int
}

// listParts lists dir/requests/part-I-of-N.parquet, by N then I.
func listParts(dir string) ([]part, error) {
	entries, err := os.ReadDir(filepath.Join(dir, PartsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, PartsDir), err)
	}
	var parts []part
	for _, e := range entries {
		m := partRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		i, err1 := strconv.Atoi(m[1])
		n, err2 := strconv.Atoi(m[2])
		if err1 != nil || err2 != nil {
			continue
		}
		parts = append(parts, part{path: filepath.Join(dir, PartsDir, e.Name()), i: i, n: n})
	}
	sort.Slice(parts, func(a, b int) bool {
		if parts[a].n != parts[b].n {
			return parts[a].n < parts[b].n
		}
		return parts[a].i < parts[b].i
	})
	return parts, nil
}

// ErrParts is wrapped by the error of a reader of an analyzed dir whose
// parts (analyze --partition) are incomplete, mixed or beside a whole
// requests.parquet.
var ErrParts = errors.New("incomplete partitioned analysis")

// requestsFiles returns the files that hold dir's requests: its
// requests.parquet, or else all n parts in dir/requests/, in order, each
// checked to be of the manifest whose SHA-256 is sum. It refuses a mix (a
// requests.parquet beside parts, parts of several n) and incomplete parts,
// naming the files.
func requestsFiles(ctx context.Context, db *sql.DB, dir, sum string) ([]string, error) {
	whole := filepath.Join(dir, RequestsFile)
	parts, err := listParts(dir)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return []string{whole}, nil
	}
	names := func(ps []part) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.path)
		}
		return strings.Join(s, ", ")
	}
	if _, err := os.Stat(whole); err == nil {
		return nil, fmt.Errorf("%s holds both %s (a whole analysis) and parts (%s), %w: remove the one not wanted, or run infertrace analyze %s again",
			dir, whole, names(parts), ErrParts, dir)
	}
	n := parts[0].n
	if last := parts[len(parts)-1].n; last != n {
		return nil, fmt.Errorf("%s holds parts of several partitionings (%s), %w: remove those not wanted, or run infertrace analyze %s again",
			filepath.Join(dir, PartsDir), names(parts), ErrParts, dir)
	}
	var missing []string
	var paths []string
	have := map[int]bool{}
	for _, p := range parts {
		have[p.i] = true
	}
	for i := range n {
		if !have[i] {
			missing = append(missing, fmt.Sprintf("%s (infertrace analyze %s --partition %d/%d)", PartName(i, n), dir, i, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s is an %w: %d of its %d parts are missing: %s", filepath.Join(dir, PartsDir), ErrParts,
			len(missing), n, strings.Join(missing, ", "))
	}
	var stale []string
	for _, p := range parts {
		if p.i >= n {
			stale = append(stale, p.path+" (no part of "+strconv.Itoa(n)+")")
			continue
		}
		got, err := kvValue(ctx, db, p.path, manifestKey)
		if err != nil {
			return nil, err
		}
		if got != sum {
			stale = append(stale, fmt.Sprintf("%s (infertrace analyze %s --partition %d/%d)", p.path, dir, p.i, n))
		}
		paths = append(paths, p.path)
	}
	if len(stale) > 0 {
		return nil, fmt.Errorf("%s: %d of its %d parts are %w, not analyzed from the manifest.json beside them (an ingest into %s ran since): %s",
			filepath.Join(dir, PartsDir), len(stale), n, ErrStale, dir, strings.Join(stale, ", "))
	}
	return paths, nil
}

// kvValue is the value of key in the key-value metadata of the Parquet
// file at path ("" when it has none).
func kvValue(ctx context.Context, db *sql.DB, path, key string) (string, error) {
	var got string
	err := db.QueryRowContext(ctx, "SELECT decode(value) FROM parquet_kv_metadata("+duck.Quote(path)+
		") WHERE decode(key) = "+duck.Quote(key)).Scan(&got)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return got, nil
}

// readParquet is DuckDB's read_parquet of paths, in their order.
func readParquet(paths []string) string {
	if len(paths) == 1 {
		return "read_parquet(" + duck.Quote(paths[0]) + ")"
	}
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = duck.Quote(p)
	}
	return "read_parquet([" + strings.Join(q, ", ") + "], union_by_name = true)"
}

// RequestsSource is the table expression (read_parquet(…)) that reads the
// requests of the analyzed dir: its requests.parquet or its parts, checked
// as AttachRequests checks them.
func RequestsSource(ctx context.Context, db *sql.DB, dir string) (string, error) {
	sum, err := manifestSum(dir)
	if err != nil {
		return "", err
	}
	paths, err := requestsFiles(ctx, db, dir, sum)
	if err != nil {
		return "", err
	}
	return readParquet(paths), nil
}
