package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/infertrace/infertrace/ingest/objstore"
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// Input is one --client/--gateway/--server argument: files of one tier, in
// one format (empty: sniffed per file).
type Input struct {
	Tier    Tier
	Format  string
	Pattern string
	// Mapping (from LoadMapping, for --map FILE) says where the columns are
	// in the lines of the jsonl format; Format is then jsonl or empty.
	Mapping *Mapping
}

// ParseInput reads "GLOB" or "FORMAT:GLOB" for tier t. A spec whose part
// before the first ':' is no format name of any tier, and that matches files
// as it stands, is a path (a log named by its timestamp,
// access-2026-11-30T10:00:00.log). An s3://BUCKET/KEYGLOB spec names
// objects (remote.go), as does FORMAT:s3://….
func ParseInput(t Tier, spec string) (Input, error) {
	if objstore.IsURL(spec) {
		return Input{Tier: t, Pattern: spec}, nil
	}
	if name, rest, ok := strings.Cut(spec, ":"); ok && name != "" && !strings.ContainsAny(name, `/\.*?[`) {
		if _, err := record.Lookup(t, name); err == nil {
			if rest == "" {
				return Input{}, fmt.Errorf("--%s %s names the format but no files: want --%s %s:GLOB", t, spec, t, name)
			}
			return Input{Tier: t, Format: name, Pattern: rest}, nil
		}
		known := strings.Join(Formats(t), ", ")
		if record.IsFormatName(name) {
			var tiers []string
			for _, other := range []Tier{Client, Gateway, Server} {
				if _, err := record.Lookup(other, name); err == nil {
					tiers = append(tiers, "--"+string(other))
				}
			}
			return Input{}, fmt.Errorf("--%s %s: unknown %s format %q: it is read with %s (the %s formats are %s)",
				t, spec, t, name, strings.Join(tiers, " or "), t, known)
		}
		if m, _ := filepath.Glob(spec); len(m) > 0 {
			return Input{Tier: t, Pattern: spec}, nil
		}
		return Input{}, fmt.Errorf("--%s %s: unknown %s format %q (known: %s), and no file matches %q either", t, spec, t, name, known, spec)
	}
	if spec == "" {
		return Input{}, fmt.Errorf("--%s needs GLOB or FORMAT:GLOB, not an empty string", t)
	}
	return Input{Tier: t, Pattern: spec}, nil
}

// Options configures Run.
type Options struct {
	Inputs []Input
	Out    string
	// Workers decode and write in parallel, 1 to MaxWorkers; 0 means
	// GOMAXPROCS (at most MaxWorkers).
	Workers int
	// Log receives the first rejected lines and file-level errors; may be nil.
	Log io.Writer
	// FormatOptions are settings of the formats that take them, by name:
	// "envoy-format" (an Envoy format string or JSON format object),
	// "nginx-format" (an NGINX log_format) and "nginx-request-id"
	// ("auto", "http_x_request_id" or "request_id"). Run fails on a bad one.
	FormatOptions map[string]string
	// ServerModel names the model of server rows whose format logs none
	// (vLLM V1 spans, TGI, SGLang, TensorRT-LLM): --server-model.
	ServerModel string
	// KeepErrorText stores error texts as logged (--keep-error-text);
	// otherwise the error column keeps only their class (errorClass), as
	// errors can quote a request.
	KeepErrorText bool
	// Progress, when not nil, is told the inputs' size and what has been
	// read of them (see Progress).
	Progress Progress
	// Append adds the inputs to the store in Out as a new batch instead of
	// superseding it: files it holds already are skipped, a file that grew
	// since it was ingested is refused (see store.go).
	Append bool
	// Prefix is the collector prefix of every line of every input: a
	// regular expression whose match at a line's start is removed, or
	// PrefixNone to strip none. Empty: detected per file (prefix.go).
	Prefix string
	// Stdin is read for the input "-" (nil: os.Stdin).
	Stdin io.Reader
	// TimeZones are the zones of the times logged without one, each
	// [TIER=]ZONE (--timezone, see zone.go): an IANA name or an offset,
	// for one tier or, without TIER=, for every tier. Run fails on a bad one.
	TimeZones []string

	prefixRE *regexp.Regexp        // Prefix compiled
	zones    map[Tier]*record.Zone // TimeZones parsed
	runID    string                // names this run's part files
	// newParsers replaces the newParser of formats configured by
	// FormatOptions (record.ConfigureFormats).
	newParsers map[*record.Format]any
}

// MaxWorkers bounds Options.Workers: decoding is CPU-bound, so workers
// beyond the cores only cost memory (each holds a Parquet writer per tier).
const MaxWorkers = 256

// Run removes the previous run's files from DIR (see superseded; with
// Options.Append it keeps the store and adds a batch to it), streams
// every input file into DIR/<tier>/part-*.parquet, writes DIR/rejects.jsonl
// and, last, DIR/manifest.json, and returns the manifest. A bad
// line or an unreadable file never stops the run: it is counted in the
// manifest (see Manifest.Failed). The error is for what makes the whole run
// impossible: no input matched, the output cannot be written, ctx ended.
func Run(ctx context.Context, opt Options) (*Manifest, error) {
	if opt.Workers < 0 || opt.Workers > MaxWorkers {
		return nil, fmt.Errorf("workers: %d is out of range (1 to %d, or 0 for one per core)", opt.Workers, MaxWorkers)
	}
	defer tuneGC()()
	if opt.Log != nil { // reader goroutines and the rejects log all write it
		opt.Log = &lockedWriter{w: opt.Log}
	}
	files, err := expand(ctx, opt.Inputs, opt.Log)
	if err != nil {
		return nil, err
	}
	newParsers, err := record.ConfigureFormats(opt.FormatOptions)
	if err != nil {
		return nil, err
	}
	if opt.prefixRE, err = CompilePrefix(opt.Prefix); err != nil {
		return nil, err
	}
	if opt.zones, err = timeZones(opt.TimeZones); err != nil {
		return nil, err
	}
	opt.runID, opt.newParsers = newRunID(), newParsers
	var prev *Manifest
	var skipped []SkippedFile
	if opt.Append {
		if prev, err = appendBase(opt.Out); err != nil {
			return nil, err
		}
		if files, skipped, err = dedupe(ctx, prev, files, opt.Log); err != nil {
			return nil, err
		}
		if len(files) == 0 && prev != nil { // nothing new: the store stays as it is
			prev.Added = &Batch{Skipped: skipped}
			return prev, nil
		}
		if prev != nil {
			err = prepareAppend(opt.Out, prev)
		} else {
			err = prepareOut(opt.Out)
		}
	} else {
		err = prepareOut(opt.Out)
	}
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil {
		opt.Progress.Start(totalSize(files))
	}
	rejects, err := newRejectLog(filepath.Join(opt.Out, "rejects.jsonl"), opt.Log)
	if err != nil {
		return nil, err
	}
	if prev != nil { // the store's rejects first, as its manifest counts them
		if err := copyPrefix(rejects.w, rejects.path, prev.RejectsBytes); err != nil {
			rejects.discard()
			return nil, err
		}
	}
	workers := opt.Workers
	if workers == 0 {
		workers = min(runtime.GOMAXPROCS(0), MaxWorkers)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	chunks := make(chan *chunk, 2*workers)
	queue := make(chan *source, len(files))
	for _, s := range files {
		queue <- s
	}
	close(queue)

	var readers sync.WaitGroup
	for range min(workers, len(files)) {
		readers.Go(func() {
			for s := range queue {
				if ctx.Err() != nil {
					return
				}
				readFile(ctx, s, chunks, rejects, opt)
			}
		})
	}
	go func() { readers.Wait(); close(chunks) }()

	var decoders sync.WaitGroup
	for w := range workers {
		decoders.Go(func() {
			wk := newWorker(opt, w, rejects)
			wk.newParsers = newParsers
			for c := range chunks {
				if ctx.Err() == nil {
					if err := wk.chunk(c); err != nil {
						cancel(err)
					}
				}
				c.release()
			}
			if err := wk.close(); err != nil {
				cancel(err)
			}
		})
	}
	decoders.Wait()
	removeEmptyPartitions(opt.Out) // of the part files of refused files (timecheck.go)
	if err := context.Cause(ctx); err != nil {
		rejects.discard()
		removeParts(opt.Out, opt.runID)
		return nil, err
	}
	if opt.Append {
		if err := checkUnique(prev, files); err != nil {
			rejects.discard()
			removeParts(opt.Out, opt.runID)
			return nil, err
		}
	}
	// With --append, rejects.jsonl and manifest.json are replaced one after
	// the other: a run killed between the two leaves rejects the manifest
	// does not count (at the end of the file, past RejectsBytes), which the
	// next append drops.
	if err := rejects.close(); err != nil {
		removeParts(opt.Out, opt.runID)
		return nil, err
	}

	m := &Manifest{Version: 2, RunID: opt.runID}
	if prev != nil {
		m.Files, m.Batches = prev.Files, prev.Batches
	}
	for _, s := range files {
		st := s.stats
		st.Rows, st.Decoded, st.Rejected = s.rows.Load(), s.decoded.Load(), s.rejected.Load()
		if s.format != nil {
			st.Format = s.format.Name
		}
		if units := st.Lines - st.Blank - st.Duplicates; st.Error == "" && st.Rows == 0 && units > 0 && st.Format != "" {
			cause := s.prefixCause
			if cause == "" && st.Rejected == 0 {
				cause = s.formatCause
			}
			st.Error = noRowsError(s.format, units, cause)
		}
		if st.Error == "" && st.Lines == 0 && s.nonBlank { // a document format that found no record
			st.Error = noRowsError(s.format, 0, "")
		}
		if err := checkAllRows(s); st.Error == "" && err != nil {
			st.Error = err.Error()
		}
		st.Batch = opt.runID
		m.Files = append(m.Files, st)
	}
	m.Batches = append(m.Batches, Batch{RunID: opt.runID, Files: len(files), Skipped: skipped})
	m.Added = &m.Batches[len(m.Batches)-1]
	if fi, err := os.Stat(filepath.Join(opt.Out, "rejects.jsonl")); err == nil {
		m.RejectsBytes = fi.Size()
	}
	if err := m.write(opt.Out); err != nil {
		removeParts(opt.Out, opt.runID)
		if prev == nil {
			os.Remove(filepath.Join(opt.Out, "rejects.jsonl"))
		}
		return nil, err
	}
	return m, nil
}

// removeParts removes the part files of run, which did not finish (ctx
// ended, a write failed): complete parts of some of the inputs, under their
// final names, must not outlive the run that wrote them without a manifest
// to say so. The parts of other runs (the store an append adds to) stay.
func removeParts(dir, run string) {
	for _, p := range partFiles(dir) {
		if partRun(filepath.Base(p)) == run {
			os.Remove(p)
		}
	}
	removeEmptyPartitions(dir)
}

// totalSize is the size on disk (or as listed, of an object) of the files,
// for Progress.Start. Standard input's is not known before it is read.
func totalSize(files []*source) int64 {
	var n int64
	for _, s := range files {
		n += max(sourceSize(s), 0)
	}
	return n
}

// fileSize is the size of the regular file at path, -1 for any other or
// one that cannot be stat'ed.
func fileSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		return fi.Size()
	}
	return -1
}

// expand turns the patterns into files, in argument order, each file once
// per tier: a file named in two tiers (one OTLP file holding every service's
// spans, given to --gateway and --client) is read for each, each tier keeping
// its own records. A directory stands for the files in it (log says which
// subdirectories it skipped). An s3:// input lists objects (remote.go).
func expand(ctx context.Context, inputs []Input, log io.Writer) ([]*source, error) {
	if len(inputs) == 0 {
		return nil, errors.New("no input: give at least one of --client, --gateway, --server")
	}
	type key struct {
		tier Tier
		path string
	}
	seen := map[key]bool{}
	var out []*source
	stdin := ""
	var objs objects
	for _, in := range inputs {
		if objstore.IsURL(in.Pattern) {
			err := objs.expand(ctx, in, log, func(url string) bool { return seen[key{in.Tier, url}] }, func(s *source) error {
				seen[key{in.Tier, s.stats.Path}] = true
				s.idx = len(out)
				if err := namedFormat(s, in); err != nil {
					return err
				}
				out = append(out, s)
				return nil
			})
			if err != nil {
				return nil, err
			}
			continue
		}
		if in.Pattern == "-" {
			// Standard input is read once: it cannot be two tiers' input.
			if stdin != "" {
				return nil, fmt.Errorf("--%s - and --%s -: only one input may be - (standard input)", stdin, in.Tier)
			}
			stdin = string(in.Tier)
			s := &source{idx: len(out), stdin: true, stats: FileStats{Tier: in.Tier, Path: StdinName}}
			if err := namedFormat(s, in); err != nil {
				return nil, err
			}
			out = append(out, s)
			continue
		}
		matches, err := filepath.Glob(in.Pattern)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %w", in.Tier, in.Pattern, err)
		}
		var paths []string
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.IsDir() {
				entries, err := os.ReadDir(m)
				if err != nil {
					return nil, fmt.Errorf("--%s %q: %w", in.Tier, in.Pattern, err)
				}
				var subdirs []string
				for _, e := range entries {
					switch {
					case strings.HasPrefix(e.Name(), "."):
					case e.IsDir():
						subdirs = append(subdirs, e.Name())
					default:
						paths = append(paths, filepath.Join(m, e.Name()))
					}
				}
				if len(subdirs) > 0 && log != nil {
					fmt.Fprintf(log, "note: --%s %s: skipped %s: a directory input reads only the files in it\n",
						in.Tier, m, countedNames(subdirs, "subdirectory", "subdirectories"))
				}
				continue
			}
			paths = append(paths, m)
		}
		if len(paths) == 0 {
			if err := unreadable(in.Pattern); err != nil {
				return nil, fmt.Errorf("--%s %q: %w", in.Tier, in.Pattern, err)
			}
			return nil, fmt.Errorf("--%s %q matches no files", in.Tier, in.Pattern)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if seen[key{in.Tier, p}] {
				continue
			}
			// A FIFO, a socket or a device is refused here, before
			// anything is opened or removed: opening a FIFO would block
			// the run until something writes to it. A file that cannot
			// be stat'ed (a symlink loop, no permission) is left to
			// readFile, which records why in the manifest.
			if fi, err := os.Stat(p); err == nil {
				if what := notRegular(fi); what != "" {
					return nil, fmt.Errorf("--%s %q: %w", in.Tier, in.Pattern, notRegularError(p, what))
				}
			}
			seen[key{in.Tier, p}] = true
			s := &source{idx: len(out), stats: FileStats{Tier: in.Tier, Path: p}}
			if err := namedFormat(s, in); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

// namedFormat sets the format of s when in names it (FORMAT:GLOB, --map).
func namedFormat(s *source, in Input) error {
	if in.Format != "" {
		f, err := record.Lookup(in.Tier, in.Format)
		if err != nil {
			return err
		}
		s.format, s.named = f, true
	}
	if f, err := mappedFormat(in); err != nil {
		return err
	} else if f != nil {
		s.format, s.named = f, true
	}
	return nil
}

// unreadable says why a pattern that matched nothing may have files after
// all: filepath.Glob drops I/O errors, so a directory that cannot be listed
// (permission denied) would read as "matches no files". It returns the error
// of the pattern's path itself (no wildcards) or of the directory its
// wildcards start in; nil when they exist and can be read, or do not exist.
func unreadable(pattern string) error {
	if !hasMeta(pattern) {
		if _, err := os.Stat(pattern); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	dir := pattern
	for hasMeta(dir) && filepath.Dir(dir) != dir {
		dir = filepath.Dir(dir)
	}
	if _, err := os.ReadDir(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func hasMeta(path string) bool {
	magic := `*?[\`
	if runtime.GOOS == "windows" {
		magic = `*?[` // \ is the separator there, not an escape
	}
	return strings.ContainsAny(path, magic)
}

// countedNames prints names as "2 subdirectories (a, b)", at most five
// named.
func countedNames(names []string, one, many string) string {
	noun := many
	if len(names) == 1 {
		noun = one
	}
	shown := names
	if len(shown) > 5 {
		shown = append(shown[:5:5], "…")
	}
	return fmt.Sprintf("%d %s (%s)", len(names), noun, strings.Join(shown, ", "))
}

// superseded are the files of an earlier run in DIR, in the order
// prepareOut removes them: first what later steps derived from an ingest
// (report's, then analyze's), then the manifest, which marks a complete
// ingest, then the rest of that ingest. A run stopped at any point (killed,
// a full disk) thus leaves no file describing other inputs than the ones
// beside it, and no manifest until its own is complete. Every file is
// written under NAME.tmp and renamed into place when complete. The parts
// that `analyze --partition` writes in DIR/requests/ (requestParts) are
// derived too, and go first.
var superseded = []string{"report.md", "report.html", "report.json", "slices.csv", "requests.parquet", "manifest.json", "rejects.jsonl"}

// prepareOut creates DIR and removes the output of an earlier run (see
// superseded), so that stale files never mix with new ones.
func prepareOut(dir string) error {
	if dir == "" {
		return errors.New("no output directory: give --out DIR")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old := requestParts(dir)
	for _, name := range superseded {
		old = append(old, filepath.Join(dir, name), filepath.Join(dir, name+".tmp"))
	}
	old = append(old, partFiles(dir)...)
	for _, p := range old {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the previous run's %s: %w", p, err)
		}
	}
	removeEmptyPartitions(dir)
	return nil
}

// requestsPartsDir is the directory of DIR into which `analyze --partition`
// writes its parts of requests.parquet (analyze.PartsDir, which ingest
// cannot import): derived from the store like requests.parquet, and
// removed with it when a new ingest or an --append changes the store.
const requestsPartsDir = "requests"

// requestParts lists the files analyze's partitions wrote in
// DIR/requests/ (part-I-of-N.parquet and any file of a killed write):
// nothing else lives there.
func requestParts(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, requestsPartsDir, "part-*"))
	return m
}

// readFile is one reader goroutine's work on one file: open, sniff, and cut
// it into chunks for the workers. Errors end the file, not the run.
func readFile(ctx context.Context, s *source, out chan<- *chunk, rejects *rejectLog, opt Options) {
	log := opt.Log
	fail := func(err error) { // reading stopped before the file's end, unless readWholeError
		s.stats.Error, s.stats.Incomplete = err.Error(), !errors.As(err, new(readWholeError))
		if log != nil && ctx.Err() == nil { // an interrupted run is abandoned: no error per file
			fmt.Fprintf(log, "error: %s\n", textsafe.Escape(err.Error()))
		}
	}
	m := &meter{ctx: ctx, p: opt.Progress, h: newHash()}
	var rc io.ReadCloser
	var size int64
	var err error
	if s.stdin {
		in := opt.Stdin
		if in == nil {
			in = os.Stdin
		}
		cr := &countReader{r: in}
		rc, err = openStream(cr, nil, s.stats.Path, m)
		// Its size is what was read, when it has all been (the
		// fingerprint's reading, below, reads it to its end).
		defer func() { s.stats.Bytes = cr.n }()
	} else if s.remote != nil {
		body := s.remote.open(ctx, -1)
		size = s.remote.obj.Size
		rc, err = openStream(body, body, s.stats.Path, m)
	} else {
		rc, size, err = openInput(s.stats.Path, m)
	}
	if err != nil {
		fail(err)
		return
	}
	defer rc.Close()
	doc := false
	// A frame of a collector's file that did not decode came as a blank
	// line: it is a rejected line (a unit of a document format), with a
	// reject saying why. Run after the counts are taken, below.
	defer func() {
		if ctx.Err() != nil {
			return
		}
		for _, b := range badFrames(rc) {
			if doc {
				s.stats.Lines++
			} else if s.stats.Blank > 0 {
				s.stats.Blank--
			}
			s.rejected.Add(1)
			rejects.add(s.stats.Tier, s.format, &ParseError{File: s.stats.Path, Line: b.line, Err: fmt.Errorf("%w: %w", record.ErrBadValue, b.err)})
		}
	}()
	// The fingerprint is of every byte of the file, read or not (a file
	// whose reading stopped at an error is still that file).
	defer func() {
		if ctx.Err() != nil {
			return
		}
		if _, err := io.Copy(m.h, m.r); err == nil {
			s.stats.Fingerprint = fingerprint(m.h)
		}
	}()
	s.stats.Bytes = size
	c := newChunker(s.stats.Path, rc)
	if opt.Prefix != "" {
		c.setPrefix(opt.prefixRE)
	}
	var shown int64 // lines handed to opt.Progress
	defer func() {
		if c.prefix != nil {
			s.stats.Prefix = c.prefix.name
			if c.prefix.timed > 0 && s.format != nil && s.format.CollectorTime != "" {
				s.stats.CollectorTime = c.prefix.timedName + ": " + s.format.CollectorTime
			}
		}
		if !doc {
			s.stats.Lines, s.stats.Blank, s.stats.Duplicates = c.lines, c.blank, c.dups
		}
		if opt.Progress != nil {
			opt.Progress.Read(0, s.stats.Lines-shown)
		}
	}()
	if s.format == nil {
		first, err := c.peekFirstLine()
		if err != nil {
			fail(err)
			return
		}
		if first == nil { // empty file: nothing to decode
			s.format, _ = record.Lookup(s.stats.Tier, record.NativeFormat)
		} else {
			lines, doc, _ := c.peekSniffLines()
			if s.format, err = record.Sniff(s.stats.Tier, s.stats.Path, lines, doc); err != nil {
				// Records of a format behind a prefix not removed: say
				// the prefix, not the formats that fit the lines worst.
				if cause := unknownFormatCause(s.stats.Tier, s.stats.Path, c.head(causeLines), opt.Prefix, c.prefix); cause != "" {
					err = fmt.Errorf("%w: cannot tell the %s format from the first lines: %s", ErrUnknownFormat, s.stats.Tier, cause)
				}
				// Said once, by the caller's summary of the files not
				// read; the reject is not echoed.
				s.stats.Error = err.Error()
				rejectWholeFile(s, c, rejects, 1, first, err)
				return
			}
		}
	}
	setZone(s, opt.zones)
	if err := checkMappedFile(s, c, rejects); err != nil {
		fail(err)
		return
	}
	if s.format.Doc == nil && s.format.NewParser != nil {
		// A line format's records pretty-printed (`jq .`) or in an array.
		lines, sdoc, _ := c.peekSniffLines()
		s.jsonRecords = sdoc != nil && (s.named && c.documentFirst() ||
			record.SniffJSONRecords(s.stats.Tier, sdoc) == s.format)
		if s.jsonRecords {
			s.stats.Framing = "json-records"
			s.sniffLines, s.sniffDoc = cloneLines(lines), bytes.Clone(sdoc)
		}
	}
	if s.format.Doc != nil || s.jsonRecords {
		doc = true
		// What the file's format is sniffed from, kept for the error of a
		// file whose rows lack their times (the chunk goes to rest).
		lines, sniffDoc, _ := c.peekSniffLines()
		s.sniffLines, s.sniffDoc = cloneLines(lines), bytes.Clone(sniffDoc)
		s.nonBlank = len(lines) > 0 || sniffDoc != nil
		if err := readDoc(s, c.rest(), opt, rejects); err != nil {
			fail(fmt.Errorf("%s: %w", s.stats.Path, err))
		}
		return
	}
	if _, err := c.peekFirstLine(); err != nil {
		fail(err)
		return
	}
	newParser := s.format.NewParser
	if np, ok := opt.newParsers[s.format]; ok {
		newParser = np
	}
	if line, raw, err := checkFirstLines(s, c, newParser); err != nil {
		// Said once, by the caller's summary, as a format not told.
		s.stats.Error = err.Error()
		rejectWholeFile(s, c, rejects, line, raw, err)
		return
	}
	s.prefixCause, s.formatCause = noRowsCauses(s, c, opt)
	for {
		ch, err := c.next()
		if ch != nil {
			ch.src = s
			if opt.Progress != nil {
				opt.Progress.Read(0, c.lines-shown)
				shown = c.lines
			}
			select {
			case out <- ch:
			case <-ctx.Done():
				ch.release()
				return
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fail(err)
			return
		}
	}
}

// readDoc decodes a file of a document format in the calling goroutine,
// into a part file of its own.
func readDoc(s *source, r io.Reader, opt Options, rejects *rejectLog) error {
	switch s.stats.Tier {
	case Client:
		return runDoc[ClientRow](s, r, opt, rejects)
	case Gateway:
		return runDoc[GatewayRow](s, r, opt, rejects)
	case Server:
		return runDoc[ServerRow](s, r, opt, rejects)
	}
	return fmt.Errorf("unknown tier %q", s.stats.Tier)
}

func runDoc[T Row](s *source, r io.Reader, opt Options, rejects *rejectLog) error {
	dir := opt.Out
	doc := s.format.Doc
	if s.format.Options != nil { // a document format that takes options returns its docParser
		d, err := s.format.Options(opt.FormatOptions) // already checked by Run
		if err != nil {
			return err
		}
		doc = d
	}
	if s.jsonRecords {
		np := s.format.NewParser
		if configured, ok := opt.newParsers[s.format]; ok {
			np = configured
		}
		lp, ok := np.(func() record.LineParser[T])
		if !ok {
			return fmt.Errorf("format %s is not a %s format", s.format.Name, s.stats.Tier)
		}
		doc = record.JSONRecords(lp)
	}
	parse, ok := doc.(record.DocParser[T])
	if !ok {
		return fmt.Errorf("format %s is not a %s format", s.format.Name, s.stats.Tier)
	}
	name := fmt.Sprintf("%s-f%04d", opt.runID, s.idx)
	sk := newSink[T](dir, s.stats.Tier, name)
	var untimed int64
	sk.fill = sinkFill[T](opt)
	out := &DocOut[T]{
		Queue: record.RowQueue[T]{Zone: s.zone},
		File:  s.stats.Path,
		Emit: func(rows []T) error {
			for i := range rows {
				if !record.HasTime(&rows[i]) {
					untimed++
				}
				*sk.slot() = rows[i]
				if err := sk.commit(); err != nil {
					return err
				}
			}
			return nil
		},
		Reject: func(pe *ParseError) error {
			s.rejected.Add(1)
			return rejects.add(s.stats.Tier, s.format, pe)
		},
	}
	err := errors.Join(parse(r, s.stats.Path, out), sk.close())
	// For a document format a "line" is one input unit: lines = decoded +
	// rejected still holds.
	s.stats.Lines = out.Units
	if err == nil && !s.format.Untimed && lacksTimes(out.Rows, untimed) {
		// Refused whole (timecheck.go): its decoded units count as
		// rejected, under one reject, and its rows go.
		terr := &timesError{Tier: s.stats.Tier, Format: s.format.Name, Sniffed: !s.named, Rows: out.Rows, Untimed: untimed,
			Hint: record.SuggestTimed(s.stats.Tier, s.sniffLines, s.sniffDoc, s.format)}
		if err := removeFileParts(dir, name); err != nil {
			return err
		}
		s.stats.Error = terr.Error()
		s.rejected.Add(out.Decoded)
		return rejects.addQuiet(s.stats.Tier, s.format, &ParseError{File: s.stats.Path, Line: 1, Err: fmt.Errorf(
			"%w; none of the file's %d records were kept", terr, out.Units)})
	}
	s.decoded.Add(out.Decoded)
	s.rows.Add(out.Rows)
	s.untimed.Add(untimed)
	return err
}

// rejectWholeFile accounts for a file that cannot be decoded at all (its
// format is unknown, its mapping does not fit it): every line still counts,
// as rejected, under one reject that names the file and the first line.
func rejectWholeFile(s *source, c *chunker, rejects *rejectLog, line int64, raw []byte, reason error) {
	// raw may lie in the first chunk, whose buffer goes back to the pool
	// below and may be filled at once with another file's bytes.
	raw = bytes.Clone(raw)
	var units int64
	for {
		ch, err := c.next()
		if ch != nil {
			units += int64(countUnits(ch))
			ch.release()
		}
		if err != nil {
			break
		}
	}
	s.rejected.Add(units)
	rejects.addQuiet(s.stats.Tier, s.format, &ParseError{File: s.stats.Path, Line: line, Raw: raw,
		Err: fmt.Errorf("%w; none of the file's %d non-blank lines were decoded", reason, units)})
}

// countUnits counts the lines of a chunk that would be decoded (neither
// blank nor duplicate).
func countUnits(ch *chunk) int {
	units := 0
	for data := ch.data; len(data) > 0; {
		var line []byte
		line, data = cutLine(data)
		if !record.IsBlank(record.TrimCR(line)) {
			units++
		}
	}
	if ch.tooLong != nil {
		units++
	}
	return units - len(ch.dups)
}

// worker decodes chunks of any tier, each into its own sink.
type worker struct {
	client  *sink[ClientRow]
	gateway *sink[GatewayRow]
	server  *sink[ServerRow]
	parsers map[*record.Format]any
	// newParsers replaces the newParser of formats configured by options.
	newParsers map[*record.Format]any
	rejects    *rejectLog
}

func newWorker(opt Options, id int, rejects *rejectLog) *worker {
	w := &worker{
		client:  newSink[ClientRow](opt.Out, Client, fmt.Sprintf("%s-w%02d", opt.runID, id)),
		gateway: newSink[GatewayRow](opt.Out, Gateway, fmt.Sprintf("%s-w%02d", opt.runID, id)),
		server:  newSink[ServerRow](opt.Out, Server, fmt.Sprintf("%s-w%02d", opt.runID, id)),
		parsers: map[*record.Format]any{},
		rejects: rejects,
	}
	w.client.fill = sinkFill[ClientRow](opt)
	w.server.fill = sinkFill[ServerRow](opt)
	return w
}

func (w *worker) chunk(c *chunk) error {
	switch c.src.stats.Tier {
	case Client:
		return decodeChunk(w, c, w.client)
	case Gateway:
		return decodeChunk(w, c, w.gateway)
	case Server:
		return decodeChunk(w, c, w.server)
	}
	return fmt.Errorf("unknown tier %q", c.src.stats.Tier)
}

func decodeChunk[T Row](w *worker, c *chunk, s *sink[T]) error {
	p, ok := w.parsers[c.src.format]
	if !ok {
		newParser := c.src.format.NewParser
		if np, ok := w.newParsers[c.src.format]; ok {
			newParser = np
		}
		p = newParser.(func() record.LineParser[T])()
		w.parsers[c.src.format] = p
	}
	if c.tooLong != nil {
		c.src.rejected.Add(1)
		if err := w.rejects.add(c.src.stats.Tier, c.src.format, c.tooLong); err != nil {
			return err
		}
	}
	d := newChunkDecoder(c, p.(record.LineParser[T]))
	var rows, untimed int64
	for {
		row := s.slot()
		err := d.Next(row)
		if err == io.EOF {
			break
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			c.src.rejected.Add(1)
			if err := w.rejects.add(c.src.stats.Tier, c.src.format, pe); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		rows++
		if !record.HasTime(row) {
			untimed++
		}
		if err := s.commit(); err != nil {
			return err
		}
	}
	c.src.rows.Add(rows)
	c.src.untimed.Add(untimed)
	c.src.decoded.Add(d.decoded)
	return nil
}

func (w *worker) close() error {
	return errors.Join(w.client.close(), w.gateway.close(), w.server.close())
}

// cloneLines copies lines, which point into a chunk's pooled buffer.
func cloneLines(lines [][]byte) [][]byte {
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = bytes.Clone(l)
	}
	return out
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
