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
	"strings"
	"time"

	"github.com/infertrace/infertrace/internal/duck"
)

// Window selects requests by their start (requests.parquet's start column:
// the first tier on the request path that has a record): From <= start <
// To, in UTC. A zero bound leaves that side open; the zero Window is
// everything.
//
// Analyzing a window reads the tier rows whose own start (client and
// gateway start_time, server arrival_time) lies within WindowMargin of it,
// [From - WindowMargin, To + WindowMargin), and rows without a start
// (formats that log durations only); it joins them as a whole analysis
// would, then keeps the requests whose start is in [From, To). So a request
// whose tiers' records straddle the window's edge (it started at 09:59:59
// on the client, 10:00:00.2 on the gateway's clock) is joined whole and
// counted once, by its start, as long as its records lie within the margin
// of the window: clock skew between hosts and a request's own duration must
// stay under WindowMargin. Only the partitions (days) and Parquet row groups
// that overlap the widened window are read.
//
// Rules computed over a run of requests take the requests read: a
// replica's cold start is its first requests within the rows read, a
// burst's usual rate that of the rows read, TGI's matching tolerances those
// of the rows read. Analyze the whole store (no window) to have every
// request judged against all of it, or the windows Partitions plans, for
// which the rows read hold all of those runs.
type Window struct {
	From, To time.Time
	// Unstarted also keeps the requests without a start (none of their
	// records has a time: some Triton traces, formats that log durations
	// only), which are in no window otherwise. Partitions sets it on its
	// last window, so that its windows together hold every request.
	Unstarted bool
}

// WindowMargin is how far beyond a window analyze reads the tiers: it
// covers clock skew between hosts and requests that straddle the window's
// edges (see Window).
const WindowMargin = 10 * time.Minute

// IsZero reports whether w selects everything.
func (w Window) IsZero() bool { return w.From.IsZero() && w.To.IsZero() }

// Check refuses a window that ends before it starts.
func (w Window) Check() error {
	if !w.From.IsZero() && !w.To.IsZero() && !w.From.Before(w.To) {
		return fmt.Errorf("the window is empty: --from %s is not before --to %s", formatBound(w.From), formatBound(w.To))
	}
	return nil
}

// String is "[FROM, TO)" with "…" for an open side.
func (w Window) String() string {
	b := func(t time.Time) string {
		if t.IsZero() {
			return "…"
		}
		return formatBound(t)
	}
	return "[" + b(w.From) + ", " + b(w.To) + ")"
}

func formatBound(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Contains reports whether v lies within w (open sides contain anything).
func (w Window) Contains(v Window) bool {
	fromOK := w.From.IsZero() || (!v.From.IsZero() && !v.From.Before(w.From))
	toOK := w.To.IsZero() || (!v.To.IsZero() && !v.To.After(w.To))
	return fromOK && toOK
}

// widen is w with margin added on each bounded side.
func (w Window) widen(margin time.Duration) Window {
	if !w.From.IsZero() {
		w.From = w.From.Add(-margin)
	}
	if !w.To.IsZero() {
		w.To = w.To.Add(margin)
	}
	return w
}

// cond is the SQL condition "col in w" on a TIMESTAMP_NS column; "" for
// the zero window.
func (w Window) cond(col string) string {
	var c []string
	if !w.From.IsZero() {
		c = append(c, col+" >= "+tsLiteral(w.From))
	}
	if !w.To.IsZero() {
		c = append(c, col+" < "+tsLiteral(w.To))
	}
	return strings.Join(c, " AND ")
}

func tsLiteral(t time.Time) string {
	return "TIMESTAMP_NS '" + t.UTC().Format("2006-01-02 15:04:05.999999999") + "'"
}

// selectRequests wraps the requests query q so that it keeps the requests
// whose start is in w.
func (w Window) selectRequests(q string) string {
	if w.IsZero() {
		return q
	}
	c := w.cond("start")
	if w.Unstarted {
		c = "(" + c + ") OR start IS NULL"
	}
	return "SELECT * FROM (\n" + q + "\n) WHERE " + c
}

// windowKey is the key of requests.parquet's key-value metadata that holds
// the window it was analyzed for (Window.encode).
const windowKey = "infertrace_window"

// encode is "FROM/TO" in RFC 3339, an open side empty: "/" for everything.
func (w Window) encode() string {
	b := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return formatBound(t)
	}
	return b(w.From) + "/" + b(w.To)
}

func decodeWindow(s string) (Window, error) {
	from, to, ok := strings.Cut(s, "/")
	if !ok {
		return Window{}, fmt.Errorf("window %q", s)
	}
	var w Window
	var err error
	if from != "" {
		if w.From, err = time.Parse(time.RFC3339Nano, from); err != nil {
			return w, err
		}
	}
	if to != "" {
		if w.To, err = time.Parse(time.RFC3339Nano, to); err != nil {
			return w, err
		}
	}
	return w, nil
}

// kvMetadata is the part of COPY's KV_METADATA that records w.
func (w Window) kvMetadata() string { return ", " + windowKey + ": " + duck.Quote(w.encode()) }

// analyzedWindow reads the window the requests.parquet at path was analyzed
// for (everything when it records none).
func analyzedWindow(ctx context.Context, db *sql.DB, path string) (Window, error) {
	var got string
	err := db.QueryRowContext(ctx, "SELECT decode(value) FROM parquet_kv_metadata("+duck.Quote(path)+
		") WHERE decode(key) = "+duck.Quote(windowKey)).Scan(&got)
	if errors.Is(err, sql.ErrNoRows) {
		return Window{}, nil
	}
	if err != nil {
		return Window{}, fmt.Errorf("requests table: %w", err)
	}
	w, err := decodeWindow(got)
	if err != nil {
		return Window{}, fmt.Errorf("%s: its %s metadata: %w", path, windowKey, err)
	}
	return w, nil
}

// ErrWindow is wrapped by the error of Summarize asked for a window that
// requests.parquet was not analyzed for.
var ErrWindow = errors.New("outside the analyzed window")

// useWindow settles the window a summary covers: want, when given, which
// must lie within the window requests.parquet was analyzed for, else that
// window. The requests view is then limited to it.
func useWindow(ctx context.Context, db *sql.DB, dir string, paths []string, want Window) (Window, error) {
	var have Window // parts hold every request together
	path := filepath.Join(dir, PartsDir)
	if !isParts(paths) {
		path = paths[0]
		var err error
		if have, err = analyzedWindow(ctx, db, path); err != nil {
			return Window{}, err
		}
	}
	if want.IsZero() {
		return have, nil
	}
	if !have.Contains(want) {
		return Window{}, fmt.Errorf("the report's window %s is %w %s of %s: run infertrace analyze %s --from … --to … covering it first",
			want, ErrWindow, have, path, dir)
	}
	q := "CREATE OR REPLACE VIEW requests AS SELECT * FROM " + readParquet(paths) + " WHERE " + want.cond("start")
	if _, err := db.ExecContext(ctx, q); err != nil {
		return Window{}, fmt.Errorf("register requests: %w", err)
	}
	return want, nil
}

// tierTimeColumn is the column of a tier's own start: what its partitions
// and windows go by.
var tierTimeColumn = map[string]string{"client": "start_time", "gateway": "start_time", "server": "arrival_time"}

// partitionPrefix starts the name of a tier's partition directories
// (ingest.PartitionColumn); defaultPartition is that of rows without a
// start (ingest.DefaultPartition). analyze does not import ingest.
const (
	partitionPrefix  = "date="
	defaultPartition = "__HIVE_DEFAULT_PARTITION__"
)

// partitionInWindow reports whether the partition directory name (date=D)
// may hold rows within w: its day overlaps w, or it holds rows without a
// start, or it is no day.
func partitionInWindow(name string, w Window) bool {
	v, ok := strings.CutPrefix(name, partitionPrefix)
	if !ok || v == defaultPartition || w.IsZero() {
		return true
	}
	day, err := time.Parse(time.DateOnly, v)
	if err != nil {
		return true
	}
	if !w.To.IsZero() && !day.Before(w.To) {
		return false
	}
	if !w.From.IsZero() && !day.Add(24*time.Hour).After(w.From) {
		return false
	}
	return true
}

// dayPartition reports whether the partition directory name is that of a
// day (date=YYYY-MM-DD), all of whose rows have a start within the day.
func dayPartition(name string) bool {
	v, ok := strings.CutPrefix(name, partitionPrefix)
	if !ok {
		return false
	}
	_, err := time.Parse(time.DateOnly, v)
	return err == nil
}

// storeRuns are the run IDs of the batches dir's manifest lists, each with
// its batch's number (1 for the oldest); nil when it lists none (every part
// file is the ingest's). Part files of other runs were left by a run killed
// before its manifest, and are not read.
func storeRuns(dir string) (map[string]int, error) {
	runs, _, err := storeBatches(dir)
	return runs, err
}

// storeBatches is storeRuns and, for each tier, the paths that more than
// one batch holds (a log appended again under its name), each with the
// number of the first batch that holds it.
func storeBatches(dir string) (map[string]int, map[string]map[string]int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("manifest: %w", err)
	}
	var m struct {
		Batches []struct {
			RunID string `json:"run_id"`
		} `json:"batches"`
		Files []struct {
			Tier  string `json:"tier"`
			Path  string `json:"path"`
			Batch string `json:"batch"`
		} `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, fmt.Errorf("manifest.json: %w", err)
	}
	if len(m.Batches) == 0 {
		return nil, nil, nil
	}
	runs := map[string]int{}
	for i, b := range m.Batches {
		runs[b.RunID] = i + 1
	}
	// first[tier][path] is the first batch holding path, as long as only
	// one does; then again is set.
	first, again := map[string]map[string]int{}, map[[2]string]bool{}
	for _, f := range m.Files {
		n := runs[f.Batch]
		if n == 0 {
			continue
		}
		if first[f.Tier] == nil {
			first[f.Tier] = map[string]int{}
		}
		switch k, ok := first[f.Tier][f.Path]; {
		case !ok:
			first[f.Tier][f.Path] = n
		case k != n:
			again[[2]string{f.Tier, f.Path}] = true
			first[f.Tier][f.Path] = min(k, n)
		}
	}
	for tier, paths := range first {
		for p := range paths {
			if !again[[2]string{tier, p}] {
				delete(paths, p)
			}
		}
	}
	return runs, first, nil
}

// partBatch is the number of the batch (storeRuns) that wrote a part file
// named part-<run>-…: 1 when runs is nil (a store of one ingest), 0 when
// runs does not list its run.
func partBatch(name string, runs map[string]int) int {
	if runs == nil {
		return 1
	}
	rest, _ := strings.CutPrefix(name, "part-")
	run, _, _ := strings.Cut(rest, "-")
	return runs[run]
}

// ParseTime reads a --from or --to value, and each end of a time window:
// HH:MM or HH:MM:SS (UTC, on the data's first day, which firstDay gives;
// it is called only for this form), a date (2026-11-30: its midnight UTC)
// or an RFC 3339 time (2026-11-30T10:00:00Z, any fraction, any zone).
func ParseTime(s string, firstDay func() (time.Time, error)) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if clockRE.MatchString(s) {
		layout := "15:04"
		if strings.Count(s, ":") == 2 {
			layout = "15:04:05"
		}
		c, err := time.Parse(layout, s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q is no time of day (HH:MM or HH:MM:SS, 00:00 to 23:59:59)", s)
		}
		day, err := firstDay()
		if err != nil {
			return time.Time{}, err
		}
		return time.Date(day.Year(), day.Month(), day.Day(), c.Hour(), c.Minute(), c.Second(), 0, time.UTC), nil
	}
	return time.Time{}, fmt.Errorf("%q is no time: want HH:MM[:SS] (UTC, on the data's first day), a date (2026-11-30) or RFC 3339 (2026-11-30T10:00:00Z)", s)
}

var clockRE = regexp.MustCompile(`^\d{1,2}:\d{2}(:\d{2})?$`)

// DataSpan is the first and last request start of dir's requests.parquet
// or, with store, the first and last record start of its ingested tiers
// (before any analysis); nil when there is none.
func DataSpan(ctx context.Context, dir string, res duck.Resources, store bool) (first, last *time.Time, err error) {
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, nil, err
	}
	defer closeDB()
	q := "SELECT min(start), max(start) FROM requests"
	if store {
		if err := registerTiers(ctx, db, dir); err != nil {
			return nil, nil, err
		}
		q = "SELECT min(t), max(t) FROM (SELECT start_time AS t FROM client UNION ALL SELECT start_time FROM gateway UNION ALL SELECT arrival_time FROM server_logged)"
	} else if err := registerRequestsOf(ctx, db, dir); err != nil {
		return nil, nil, err
	}
	var a, b sql.NullTime
	if err := db.QueryRowContext(ctx, q).Scan(&a, &b); err != nil {
		return nil, nil, fmt.Errorf("the data's window: %w", err)
	}
	if !a.Valid {
		return nil, nil, nil
	}
	f, l := a.Time.UTC(), b.Time.UTC()
	return &f, &l, nil
}

// FormatWindow renders a sample window of start times in UTC with
// millisecond precision, e.g. "2026-03-01 12:00:00.000 – 12:00:08.000 UTC"
// (the date is repeated only when it changes); "–" when empty.
func FormatWindow(first, last *time.Time) string {
	if first == nil || last == nil {
		return "–"
	}
	a, b := first.UTC(), last.UTC()
	const day, clock = "2006-01-02 ", "15:04:05.000"
	end := b.Format(clock)
	if a.Format(day) != b.Format(day) {
		end = b.Format(day + clock)
	}
	return a.Format(day+clock) + " – " + end + " UTC"
}

// FormatTime renders one time in UTC with millisecond precision, e.g.
// "2026-03-01 12:00:00.000 UTC"; "–" when nil.
func FormatTime(t *time.Time) string {
	if t == nil {
		return "–"
	}
	return t.UTC().Format("2006-01-02 15:04:05.000") + " UTC"
}

// ParseWindow reads a time window for a side of compare:
// "HH:MM[:SS]-HH:MM[:SS]" (UTC times of the data's first day, which
// firstDay gives; an end at or before the start is on the next day), or
// FROM/TO, each end as ParseTime reads it (HH:MM[:SS], a date, RFC 3339).
// It reports false when s looks like no window.
func ParseWindow(s string, firstDay func() (time.Time, error)) (from, to time.Time, ok bool, err error) {
	if a, b, found := strings.Cut(s, "/"); found {
		from, err = ParseTime(a, firstDay)
		if err == nil {
			to, err = ParseTime(b, firstDay)
		}
		if err != nil {
			return from, to, true, fmt.Errorf("window %q: %w", s, err)
		}
		if !to.After(from) {
			return from, to, true, fmt.Errorf("window %q ends before it starts", s)
		}
		return from, to, true, nil
	}
	m := windowRE.FindStringSubmatch(s)
	if m == nil {
		return from, to, false, nil
	}
	if from, err = ParseTime(m[1], firstDay); err == nil {
		to, err = ParseTime(m[2], firstDay)
	}
	if err != nil {
		return from, to, true, fmt.Errorf("window %q: %w", s, err)
	}
	if !to.After(from) {
		to = to.Add(24 * time.Hour)
	}
	return from, to, true, nil
}

var windowRE = regexp.MustCompile(`^(\d{1,2}:\d{2}(?::\d{2})?)-(\d{1,2}:\d{2}(?::\d{2})?)$`)

// FirstStart returns the earliest request start of an analyzed dir, for
// the day of a time-of-day window; nil without requests.
func FirstStart(ctx context.Context, dir string, res duck.Resources) (*time.Time, error) {
	db, closeDB, err := duck.Open(ctx, dir, res)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	if err := registerRequestsOf(ctx, db, dir); err != nil {
		return nil, err
	}
	var t sql.NullTime
	if err := db.QueryRowContext(ctx, "SELECT min(start) FROM requests").Scan(&t); err != nil {
		return nil, fmt.Errorf("first start: %w", err)
	}
	if !t.Valid {
		return nil, nil
	}
	u := t.Time.UTC()
	return &u, nil
}

// registerRequestsOf creates the requests view over dir's requests.parquet
// or its parts (checked as AttachRequests does).
func registerRequestsOf(ctx context.Context, db *sql.DB, dir string) error {
	parts, err := listParts(dir)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return registerRequests(ctx, db, filepath.Join(dir, RequestsFile))
	}
	_, err = attachRequests(ctx, db, dir)
	return err
}
