package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/suggest"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// ingestFlags are shared by ingest and run.
type ingestFlags struct {
	client, gateway, server []string
	out                     string
	workers                 int
	maps                    []string
	serverModel             string
	append                  bool
	keepErrorText           bool
	prefix                  string
	timezones               []string
	// formatOptions are the settings the formats declare, by name.
	formatOptions map[string]*string
	fs            *pflag.FlagSet
}

func (f *ingestFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.client, "client", nil, "client logs, [FORMAT:]GLOB, s3://BUCKET/GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Client), ", ")+")")
	fs.StringArrayVar(&f.gateway, "gateway", nil, "gateway logs, [FORMAT:]GLOB, s3://BUCKET/GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Gateway), ", ")+")")
	fs.StringArrayVar(&f.server, "server", nil, "inference-server logs, [FORMAT:]GLOB, s3://BUCKET/GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Server), ", ")+")")
	fs.StringVar(&f.out, "out", "", "output directory (required)")
	f.fs = fs
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("parallel decoders and writers, 1 to %d (default: one per core)", ingest.MaxWorkers))
	f.formatOptions = map[string]*string{}
	for _, o := range ingest.FormatOptions() {
		f.formatOptions[o.Name] = fs.String(o.Name, o.Default, o.Usage)
	}
	fs.StringVar(&f.serverModel, "server-model", "", "model name for server records whose format logs none (vLLM V1 spans, TGI, SGLang, TensorRT-LLM)")
	fs.StringArrayVar(&f.maps, "map", nil, "mapping file (TOML or YAML) for the jsonl inputs of the tier it names (repeatable, one per tier)")
	fs.BoolVar(&f.keepErrorText, "keep-error-text", false, "store error texts as logged; by default the error column keeps only their first line with numbers, quoted text, queries and credentials masked, as errors can quote a request (see docs/secrets.md)")
	fs.StringVar(&f.prefix, "prefix", "", "remove the match of REGEX at the start of every input line (a collector's prefix not detected by itself; see docs/collectors.md), or none to strip no prefix")
	fs.StringArrayVar(&f.timezones, "timezone", nil, "read times logged without a zone (LiteLLM's \"2025-01-24 09:20:46.847371\") in ZONE, an IANA name (Europe/Paris) or an offset (+01:00), for TIER only or, without TIER=, for every tier (repeatable); without it such a time is rejected, unless its format documents a default (docs/formats.md)")
	fs.BoolVar(&f.append, "append", false, "add the logs to the store in --out as a new batch, keeping earlier batches: a file already in it (same content, whatever its path) is skipped, a file that grew since it was ingested is refused")
}

func (f *ingestFlags) options(e *env) (ingest.Options, error) {
	if f.out == "" {
		return ingest.Options{}, usageErr("--out DIR is required")
	}
	if f.fs != nil && f.fs.Changed("workers") && (f.workers < 1 || f.workers > ingest.MaxWorkers) {
		return ingest.Options{}, usageErr("--workers %d: want 1 to %d (the default is one per core)", f.workers, ingest.MaxWorkers)
	}
	opt := ingest.Options{Out: f.out, Workers: f.workers, Log: e.stderr, ServerModel: f.serverModel, KeepErrorText: f.keepErrorText, Append: f.append, Prefix: f.prefix, Stdin: e.stdin, TimeZones: f.timezones, FormatOptions: map[string]string{}}
	for name, v := range f.formatOptions {
		opt.FormatOptions[name] = *v
	}
	if _, err := ingest.CompilePrefix(f.prefix); err != nil {
		return opt, usageErr("%v", err)
	}
	for _, z := range f.timezones {
		if _, _, err := ingest.ParseTimeZone(z); err != nil {
			return opt, usageErr("%v", err)
		}
	}
	for _, tier := range []struct {
		t     ingest.Tier
		specs []string
	}{{ingest.Client, f.client}, {ingest.Gateway, f.gateway}, {ingest.Server, f.server}} {
		for _, s := range tier.specs {
			in, err := ingest.ParseInput(tier.t, s)
			if err != nil {
				return opt, usageErr("%v%s", err, formatHint(tier.t, s))
			}
			opt.Inputs = append(opt.Inputs, in)
		}
	}
	if len(opt.Inputs) == 0 {
		return opt, usageErr("give at least one of --client, --gateway, --server")
	}
	for _, in := range opt.Inputs {
		if ingest.IsObjectURL(in.Pattern) {
			continue // objects are no local tree
		}
		if err := outOverlaps(f.out, in.Pattern); err != nil {
			return opt, usageErr("--%s %s: %v", in.Tier, in.Pattern, err)
		}
	}
	mappings := map[ingest.Tier]*ingest.Mapping{}
	for _, path := range f.maps {
		m, err := ingest.LoadMapping(path)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return opt, usageErr("cannot read --map %s: %v", path, pe.Err)
		}
		if err != nil {
			return opt, usageErr("%v", err)
		}
		if prev := mappings[m.Tier]; prev != nil {
			return opt, usageErr("--map %s and --map %s are both for the %s tier", prev.File, m.File, m.Tier)
		}
		mappings[m.Tier] = m
	}
	for i, in := range opt.Inputs {
		if in.Format == "jsonl" {
			opt.Inputs[i].Mapping = mappings[in.Tier]
		}
	}
	return opt, nil
}

// outOverlaps refuses an input GLOB (or directory) and an --out DIR of
// which one may hold the other: out at or under what the glob can match
// (a directory input's tree), or an input within out. Ingest replaces
// what out holds, so it would delete its own inputs, or read its previous
// output (manifest.json, report.md, Parquet parts) as logs. Paths are
// compared made absolute, component by component, each of the glob's
// matched against out's.
func outOverlaps(out, pattern string) error {
	o, err1 := filepath.Abs(out)
	p, err2 := filepath.Abs(pattern)
	if err1 != nil || err2 != nil {
		return nil // the ingest says what is wrong with the path
	}
	split := func(s string) []string {
		return strings.Split(strings.TrimPrefix(s, string(filepath.Separator)), string(filepath.Separator))
	}
	oc, pc := split(o), split(p)
	if o == string(filepath.Separator) {
		oc = nil
	}
	for i := 0; i < len(oc) && i < len(pc); i++ {
		if ok, err := filepath.Match(pc[i], oc[i]); err != nil || !ok {
			return nil
		}
	}
	if len(pc) <= len(oc) && !strings.ContainsAny(pattern, `*?[\\`) {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return nil // a file has no tree: creating out says so
		}
	}
	if len(pc) > len(oc) {
		return fmt.Errorf("the input lies within --out %s, which ingest replaces: write the store to a directory apart from the logs", out)
	}
	return fmt.Errorf("--out %s lies within the input's tree, so a later run would read the store as logs: write it to a directory apart from the logs", out)
}

// formatHint is ": did you mean F:GLOB?" for a FORMAT:GLOB whose format
// is a mistyped format of tier t, else "".
func formatHint(t ingest.Tier, spec string) string {
	name, rest, ok := strings.Cut(spec, ":")
	if !ok || slices.Contains(ingest.Formats(t), name) {
		return ""
	}
	if f, ok := suggest.Nearest(name, ingest.Formats(t)); ok {
		return ": did you mean " + f + ":" + rest + "?"
	}
	return ""
}

func doIngest(ctx context.Context, e *env, opt ingest.Options) error {
	if p := e.progress; p != nil {
		opt.Progress, opt.Log = p, p.log(opt.Log)
	}
	m, err := ingest.Run(ctx, opt)
	e.progress.ingestDone()
	if err != nil {
		return err
	}
	if opt.Append {
		return appended(e, m)
	}
	t := m.Totals()
	fmt.Fprintf(e.stdout, "ingested %d files: %d lines = %d decoded + %d rejected + %d duplicates + %d blank; %d rows\n",
		len(m.Files), t.Lines, t.Decoded, t.Rejected, t.Duplicates, t.Blank, t.Rows)
	return reportFailed(e, m.Failed(), len(m.Files))
}

// reportFailed says once, one line each, which files were not read whole:
// a file whose format could not be told or that made no rows is named
// with its manifest error (which says which flag to pass); any other with
// where its reading stopped.
func reportFailed(e *env, failed []ingest.FileStats, files int) error {
	if len(failed) == 0 {
		return nil
	}
	notRead := 0
	for _, f := range failed {
		if ingest.IsFormatError(f.Error) {
			fmt.Fprintf(e.stderr, "%s: %s\n", textsafe.Escape(f.Path), textsafe.Escape(f.Error))
			continue
		}
		notRead++
		fmt.Fprintf(e.stderr, "not read to the end: %s: %s\n", textsafe.Escape(f.Path), textsafe.Escape(f.Error))
	}
	if notRead == 0 {
		return fmt.Errorf("%d of %d files gave no rows (see above; their lines are accounted for in manifest.json)", len(failed), files)
	}
	return fmt.Errorf("%d of %d files could not be read to the end (their other lines were kept; see manifest.json)", len(failed), files)
}

// appended says what an ingest --append added to the store, and the
// store's totals; only the batch's files count for the exit status.
func appended(e *env, m *ingest.Manifest) error {
	batch := &ingest.Manifest{}
	if m.Added != nil && m.Added.RunID != "" {
		for _, f := range m.Files {
			if f.Batch == m.Added.RunID {
				batch.Files = append(batch.Files, f)
			}
		}
	}
	skipped := 0
	if m.Added != nil {
		skipped = len(m.Added.Skipped)
	}
	t, all := batch.Totals(), m.Totals()
	if len(batch.Files) == 0 {
		fmt.Fprintf(e.stdout, "appended nothing: all %d files are in the store already; it holds %d files from %d batches, %d rows\n",
			skipped, len(m.Files), len(m.Batches), all.Rows)
		return nil
	}
	fmt.Fprintf(e.stdout, "appended %d files (%d skipped, in the store already): %d lines = %d decoded + %d rejected + %d duplicates + %d blank; %d rows; the store holds %d files from %d batches, %d rows\n",
		len(batch.Files), skipped, t.Lines, t.Decoded, t.Rejected, t.Duplicates, t.Blank, t.Rows, len(m.Files), len(m.Batches), all.Rows)
	return reportFailed(e, batch.Failed(), len(batch.Files))
}

func cmdIngest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "ingest")
	var f ingestFlags
	f.register(fs)
	quiet := quietFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "name the logs with --client, --gateway or --server"); err != nil {
		return err
	}
	opt, err := f.options(e)
	if err != nil {
		return err
	}
	lock, err := lockOut(opt.Out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	defer e.showProgress(*quiet)()
	return doIngest(ctx, e, opt)
}

// lockIngested locks DIR for analyze or report: it must hold an ingest's
// output (else nothing is written there), and no other run may be using it.
func lockIngested(dir string) (*ingest.OutLock, error) {
	if err := analyze.CheckIngested(dir); err != nil {
		// An ingest under way has removed the previous manifest: say that
		// the directory is busy rather than empty.
		if busy := ingest.CheckOutFree(dir); busy != nil {
			return nil, busy
		}
		return nil, err
	}
	return lockOut(dir)
}

// lockIngestedShared is lockIngested with a lock that other parts of
// analyze --partition share.
func lockIngestedShared(dir string) (*ingest.OutLock, error) {
	if err := analyze.CheckIngested(dir); err != nil {
		if busy := ingest.CheckOutFree(dir); busy != nil {
			return nil, busy
		}
		return nil, err
	}
	return ingest.LockOutShared(dir)
}

// lockOut is ingest.LockOut, saying in words a directory that cannot be
// created or written.
func lockOut(dir string) (*ingest.OutLock, error) {
	lock, err := ingest.LockOut(dir)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if pe.Op == "mkdir" {
			return nil, fmt.Errorf("cannot create the directory %s: %v", dir, pe.Err)
		}
		return nil, fmt.Errorf("cannot write into %s: %v", dir, pe.Err)
	}
	return lock, err
}
