package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/suggest"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/textsafe"
	"github.com/infertrace/infertrace/report"
	"github.com/infertrace/infertrace/simulate"
)

// command is one subcommand: its flags and what it does with them.
type command struct {
	name  string
	usage string
	run   func(ctx context.Context, env *env, args []string) error
}

type env struct {
	// stdin is read for an input "-".
	stdin          io.Reader
	stdout, stderr io.Writer
	// isTerminal says whether stderr is a terminal, where progress is
	// shown (see progress.go); progress is the display of the command
	// running, nil when none is shown.
	isTerminal func(io.Writer) bool
	progress   *progress
	// cmd is the command running, whose help -h shows.
	cmd *command
}

// errUsage marks errors that are the caller's words, not the data: exit 2.
var errUsage = errors.New("usage")

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

var commands = []*command{
	{"run", "run --client GLOB --gateway GLOB --server GLOB --out DIR [--by COLS] [--format md,html,json]", cmdRun},
	{"ingest", "ingest --client GLOB --gateway GLOB --server GLOB --out DIR", cmdIngest},
	{"analyze", "analyze DIR [--memory-limit 1GiB] [--threads N]", cmdAnalyze},
	{"report", "report DIR [--by model,use_case] [--format md,html,json] [--contract FILE] [--evals FILE] [--prices FILE] [--memory-limit 1GiB] [--threads N]", cmdReport},
	{"compare", "compare BASELINE_DIR TARGET_DIR | compare DIR --baseline SPEC --target SPEC [--by COLS] [--out DIR]", cmdCompare},
	{"explain", "explain DIR [REQUEST_ID...] [--client X] [--region R] [--model M] [--from T] [--to T] [--out DIR]", cmdExplain},
	// whatif (issue #15)
	{"whatif", "whatif DIR [--replicas MODEL=N|+N] [--slots MODEL=N] [--traffic X] [--contract FILE] [--from T] [--to T] [--out DIR]", cmdWhatIf},
	{"simulate", "simulate --out DIR [--requests N] [--seed S] [--formats vllm-otlp,gateway=envoy,gw-2=nginx,client=aiperf,...]", cmdSimulate},
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, &env{stdin: stdin, stdout: stdout, stderr: stderr, isTerminal: isTerminal}, args)
}

func runEnv(ctx context.Context, e *env, args []string) int {
	stderr := e.stderr
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "--help", "help":
		if len(args) > 1 && args[0] == "help" { // help COMMAND
			return runEnv(ctx, e, []string{args[1], "--help"})
		}
		printUsage(e.stdout)
		return 0
	case "--version", "version":
		return printVersion(ctx, e)
	}
	c := lookupCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "infertrace: %s\nRun 'infertrace --help' for the commands.\n", textsafe.Escape(unknownCommand(args[0])))
		return 2
	}
	e.cmd = c
	err := c.run(ctx, e, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, pflag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "infertrace %s: %s\nRun 'infertrace %s --help' for its usage.\n", c.name, textsafe.Escape(strings.TrimPrefix(err.Error(), "usage: ")), c.name)
		return 2
	case errors.As(err, new(*verdictError)):
		// Everything ran and was written; --fail-on contract makes the
		// contract's verdict the exit status.
		var v *verdictError
		errors.As(err, &v)
		fmt.Fprintf(stderr, "infertrace %s: %s\n", c.name, textsafe.Escape(v.msg))
		return v.code
	case errors.As(err, new(*contract.Error)):
		// A mistake in the --contract file, found on reading it or on
		// judging it (a use case that selects no request): the caller's
		// words, so exit 2; the file's line says where.
		fmt.Fprintf(stderr, "infertrace %s: %s\n", c.name, textsafe.Escape(err.Error()))
		return 2
	case ctx.Err() != nil:
		// Ctrl-C: whatever failed, failed because of it. Every
		// output is written under NAME.tmp and renamed when
		// complete, and an unfinished ingest removes its parts,
		// so nothing half-written is left under a final name.
		fmt.Fprintf(stderr, "infertrace %s: interrupted\n", c.name)
		return exitInterrupted
	default:
		if where, reason, ok := duck.OutOfMemory(err); ok {
			fmt.Fprint(stderr, outOfMemory(c.name, where, reason))
			return 1
		}
		fmt.Fprintf(stderr, "infertrace %s: %s\n", c.name, textsafe.Escape(err.Error()))
		return 1
	}
}

// outOfMemory says that command ran out of DuckDB's memory limit where
// (the step), with the first line of DuckDB's reason, and what its flags
// can do about it; DuckDB's own advice is in SQL (SET threads=X).
func outOfMemory(command, where, reason string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "infertrace %s: %sout of memory: %s\n", command, textsafe.Escape(where), textsafe.Escape(reason))
	fmt.Fprintf(&b, "DuckDB needed more than the memory limit allows; to stay within it, try:\n")
	fmt.Fprintf(&b, "  --memory-limit SIZE  a larger limit, if the machine has the memory (default %s)\n", defaultMemoryLimit)
	fmt.Fprintf(&b, "  --threads N          fewer threads: each holds buffers of its own (--threads 1 needs the least)\n")
	if command != "compare" { // compare's windows are its --baseline and --target
		fmt.Fprintf(&b, "  --from T --to T      a shorter time window, fewer requests at once\n")
	}
	return b.String()
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// unknownCommand says what is wrong with a first argument that names no
// command, and what was likely meant.
func unknownCommand(arg string) string {
	if strings.HasPrefix(arg, "-") {
		if s := didYouMean(strings.TrimLeft(arg, "-"), []string{"help", "version"}, "--"); s != "" {
			return "unknown flag " + arg + s
		}
		return arg + " is not a command: the command comes first, then its flags (infertrace COMMAND [flags])"
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return fmt.Sprintf("unknown command %q%s", arg, didYouMean(arg, names, ""))
}

// exitInterrupted is the exit status of a command stopped by Ctrl-C
// (128 + SIGINT, as shells report it).
const exitInterrupted = 130

// quietFlag registers --quiet, which turns the progress display off.
func quietFlag(fs *pflag.FlagSet) *bool {
	return fs.BoolP("quiet", "q", false, "show no progress on stderr (it is shown only when stderr is a terminal)")
}

func newFlags(e *env, name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	if e.cmd != nil {
		fs.Usage = func() { printCommandHelp(e.stdout, e.cmd, fs) }
	}
	return fs
}

func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageErr("%s", flagError(fs, err))
	}
	return nil
}

// flagError says in a sentence what is wrong with the flags fs could not
// parse, with the flag likely meant when one is mistyped.
func flagError(fs *pflag.FlagSet, err error) string {
	var notExist *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	var badValue *pflag.InvalidValueError
	var badSyntax *pflag.InvalidSyntaxError
	switch {
	case errors.As(err, &notExist):
		name, group := notExist.GetSpecifiedName(), notExist.GetSpecifiedShortnames()
		if len(group) > 1 { // -gateway: a long name after one dash
			return "unknown flag -" + group + didYouMean(group, flagNames(fs), "--")
		}
		if group != "" {
			return "unknown flag -" + name
		}
		return "unknown flag --" + name + didYouMean(name, flagNames(fs), "--")
	case errors.As(err, &noValue):
		f := noValue.GetFlag()
		return fmt.Sprintf("--%s needs a value: --%s %s", f.Name, f.Name, flagArg(f))
	case errors.As(err, &badValue):
		f, v := badValue.GetFlag(), badValue.GetValue()
		switch f.Value.Type() {
		case "int", "int64", "uint", "uint64":
			return fmt.Sprintf("--%s %q is not a whole number", f.Name, v)
		case "duration":
			return fmt.Sprintf("--%s %q is not a duration: write it as 500ms, 5s or 1m30s", f.Name, v)
		case "bool":
			return fmt.Sprintf("--%s=%s: want --%s=true or --%s=false", f.Name, v, f.Name, f.Name)
		}
		return fmt.Sprintf("--%s %q: %v", f.Name, v, errors.Unwrap(err))
	case errors.As(err, &badSyntax):
		return badSyntax.GetSpecifiedFlag() + " is not a flag: write --NAME VALUE, --NAME=VALUE or -X"
	}
	return err.Error()
}

// noArgs refuses the arguments of a command that takes none; what says
// what to use instead.
func noArgs(fs *pflag.FlagSet, what string) error {
	if fs.NArg() == 0 {
		return nil
	}
	return usageErr("unexpected argument %q: %s", fs.Arg(0), what)
}

// ingestFlags are shared by ingest and run.
type ingestFlags struct {
	client, gateway, server []string
	out                     string
	workers                 int
	envoyFormat             string
	nginxFormat             string
	nginxRequestID          string
	maps                    []string
	otelRequestID           string
	otelGatewayService      string
	otelClientService       string
	serverModel             string
	append                  bool
	keepErrorText           bool
	prefix                  string
	fs                      *pflag.FlagSet
}

func (f *ingestFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.client, "client", nil, "client logs, [FORMAT:]GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Client), ", ")+")")
	fs.StringArrayVar(&f.gateway, "gateway", nil, "gateway logs, [FORMAT:]GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Gateway), ", ")+")")
	fs.StringArrayVar(&f.server, "server", nil, "inference-server logs, [FORMAT:]GLOB, or - for standard input (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Server), ", ")+")")
	fs.StringVar(&f.out, "out", "", "output directory (required)")
	f.fs = fs
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("parallel decoders and writers, 1 to %d (default: one per core)", ingest.MaxWorkers))
	fs.StringVar(&f.envoyFormat, "envoy-format", "", "Envoy access log format string (or JSON format object) of envoy gateway logs, when not Envoy's default")
	fs.StringVar(&f.nginxFormat, "nginx-format", "", "NGINX log_format string of nginx gateway logs (default: combined, or escape=json lines)")
	fs.StringVar(&f.nginxRequestID, "nginx-request-id", "auto", "which NGINX variable is the request ID: auto, http_x_request_id or request_id")
	fs.StringVar(&f.otelRequestID, "otel-request-id", "", "span attribute holding the request ID in OTLP traces (default: the x-request-id header attribute)")
	fs.StringVar(&f.otelGatewayService, "otel-gateway-service", "", "service.name values (comma-separated) whose spans are the gateway's, in mixed OTLP files")
	fs.StringVar(&f.otelClientService, "otel-client-service", "", "service.name values (comma-separated) whose spans are the client's, in mixed OTLP files")
	fs.StringVar(&f.serverModel, "server-model", "", "model name for server records whose format logs none (vLLM V1 spans, TGI, SGLang, TensorRT-LLM)")
	fs.StringArrayVar(&f.maps, "map", nil, "mapping file (TOML or YAML) for the jsonl inputs of the tier it names (repeatable, one per tier)")
	fs.BoolVar(&f.keepErrorText, "keep-error-text", false, "store error texts as logged; by default the error column keeps only their first line with numbers, quoted text, queries and credentials masked, as errors can quote a request (see docs/secrets.md)")
	fs.StringVar(&f.prefix, "prefix", "", "remove the match of REGEX at the start of every input line (a collector's prefix not detected by itself; see docs/collectors.md), or none to strip no prefix")
	fs.BoolVar(&f.append, "append", false, "add the logs to the store in --out as a new batch, keeping earlier batches: a file already in it (same content, whatever its path) is skipped, a file that grew since it was ingested is refused")
}

func (f *ingestFlags) options(e *env) (ingest.Options, error) {
	if f.out == "" {
		return ingest.Options{}, usageErr("--out DIR is required")
	}
	if f.fs != nil && f.fs.Changed("workers") && (f.workers < 1 || f.workers > ingest.MaxWorkers) {
		return ingest.Options{}, usageErr("--workers %d: want 1 to %d (the default is one per core)", f.workers, ingest.MaxWorkers)
	}
	opt := ingest.Options{Out: f.out, Workers: f.workers, Log: e.stderr, ServerModel: f.serverModel, KeepErrorText: f.keepErrorText, Append: f.append, Prefix: f.prefix, Stdin: e.stdin, FormatOptions: map[string]string{
		"envoy-format":         f.envoyFormat,
		"nginx-format":         f.nginxFormat,
		"nginx-request-id":     f.nginxRequestID,
		"otel-request-id":      f.otelRequestID,
		"otel-gateway-service": f.otelGatewayService,
		"otel-client-service":  f.otelClientService,
	}}
	if _, err := ingest.CompilePrefix(f.prefix); err != nil {
		return opt, usageErr("%v", err)
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

func oneDir(fs *pflag.FlagSet) (string, error) {
	switch fs.NArg() {
	case 0:
		return "", usageErr("missing DIR, the --out directory of an ingest")
	case 1:
	default:
		return "", usageErr("want one DIR, the --out directory of an ingest, not %d arguments (%s)", fs.NArg(), strings.Join(fs.Args(), " "))
	}
	return fs.Arg(0), nil
}

// defaultMemoryLimit is the default of --memory-limit (duck.DefaultMemoryLimit).
const defaultMemoryLimit = "1GiB"

// resourceFlags bound DuckDB in analyze, report and run.
type resourceFlags struct {
	memory  string
	threads int
	profile string
}

func (f *resourceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.memory, "memory-limit", defaultMemoryLimit, "DuckDB memory limit (e.g. 1GiB, 1500MB); beyond it DuckDB spills to DIR/"+duck.TempDirName)
	fs.IntVar(&f.threads, "threads", 0, fmt.Sprintf("DuckDB threads, 1 to %d (0: one per core)", duck.MaxThreads))
	fs.StringVar(&f.profile, "profile", "", "write each step's wall time (`DIR`/steps.tsv) and DuckDB's profile of it (DIR/NNN-step.json)")
}

func (f *resourceFlags) resources() (duck.Resources, error) {
	limit, err := duck.ParseMemory(f.memory)
	if err != nil {
		return duck.Resources{}, usageErr("--memory-limit: %v", err)
	}
	if f.threads < 0 || f.threads > duck.MaxThreads {
		return duck.Resources{}, usageErr("--threads %d: want 1 to %d (the default, 0, is one per core)", f.threads, duck.MaxThreads)
	}
	return duck.Resources{MemoryLimit: limit, Threads: f.threads, Profile: f.profile}, nil
}

// doAnalyzeIn analyzes the store in dir for the requests that start in w
// (all of them when w is zero).
func doAnalyzeIn(ctx context.Context, e *env, dir string, res duck.Resources, w analyze.Window) error {
	st, err := analyze.RunWindow(e.progress.steps(ctx, "analyze"), dir, res, w)
	e.progress.done()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "analyzed %s\n", st)
	if len(st.Removed) > 0 && e.cmd != nil && e.cmd.name == "analyze" { // run writes a new report next
		fmt.Fprintf(e.stderr, "removed %s: made from the previous %s (infertrace report %s makes a new report)\n",
			textsafe.Escape(strings.Join(st.Removed, ", ")), analyze.RequestsFile, textsafe.Escape(dir))
	}
	return nil
}

func cmdAnalyze(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze")
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	var wf windowFlags
	wf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := oneDir(fs)
	if err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	lock, err := lockIngested(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	w, err := wf.window(ctx, dir, res, true)
	if err != nil {
		return err
	}
	defer e.showProgress(*quiet)()
	return doAnalyzeIn(ctx, e, dir, res, w)
}

type reportFlags struct {
	by, formats []string
	// The product contract and what it is judged on (see quality.go).
	qualityFlags
	window analyze.Window // --from/--to, set by the command
	// The trend per day or week (see period.go).
	periodFlags
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.by, "by", []string{"model", "use_case"}, "slice the report by these columns")
	fs.StringSliceVar(&f.formats, "format", slices.Clone(report.DefaultFormats), "report formats to write: md, html, json, csv")
	f.qualityFlags.register(fs)
	f.periodFlags.register(fs)
}

// check refuses unknown report formats before anything is read or locked.
func (f *reportFlags) check() error {
	for _, by := range f.by {
		if !slices.Contains(analyze.SliceColumns, by) {
			return usageErr("--by names %q, which is no column to slice by%s", by,
				orWant(by, analyze.SliceColumns))
		}
	}
	for _, format := range f.formats {
		if !slices.Contains(report.FormatNames, format) {
			return usageErr("--format names %q, which is no report format%s", format, orWant(format, report.FormatNames))
		}
	}
	if _, err := f.periodFlags.unit(); err != nil {
		return err
	}
	return f.qualityFlags.check()
}

// orWant is ": did you mean X?" for the value nearest v, else the list of
// values wanted.
func orWant(v string, values []string) string {
	if s := didYouMean(v, values, ""); s != "" {
		return s
	}
	return " (want any of " + strings.Join(values, ", ") + ")"
}

func doReport(ctx context.Context, e *env, dir string, f reportFlags, rs duck.Resources) error {
	if err := f.check(); err != nil {
		return err
	}
	period, _ := f.periodFlags.unit() // checked above
	res, err := analyze.Summarize(e.progress.steps(ctx, "report"), dir, analyze.SummaryOptions{By: f.by, Resources: rs, Window: f.window,
		Evals: f.evals, Prices: f.prices, Contract: f.loaded, TokenEdges: f.edges, Period: period})
	if err != nil {
		e.progress.done()
		return err
	}
	e.progress.setStep("report: writing " + strings.Join(f.formats, ", "))
	if ctx.Err() != nil { // Ctrl-C before the reports: write none
		e.progress.done()
		return context.Cause(ctx)
	}
	paths, err := report.WriteFiles(dir, res, f.formats)
	e.progress.done()
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(e.stdout, "report: %s\n", p)
	}
	return f.contractFails(res.Contract)
}

func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "report")
	var f reportFlags
	f.register(fs)
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	var wf windowFlags
	wf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	dir, err := oneDir(fs)
	if err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	lock, err := lockIngested(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	if f.window, err = wf.window(ctx, dir, res, false); err != nil {
		return err
	}
	defer e.showProgress(*quiet)()
	return doReport(ctx, e, dir, f, res)
}

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "run")
	var inf ingestFlags
	var rf reportFlags
	inf.register(fs)
	rf.register(fs)
	quiet := quietFlag(fs)
	var rsf resourceFlags
	rsf.register(fs)
	var wf windowFlags
	wf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "name the logs with --client, --gateway or --server"); err != nil {
		return err
	}
	opt, err := inf.options(e)
	if err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := wf.check(); err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	// One lock for the three steps: no other run slips in between.
	lock, err := lockOut(opt.Out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	defer e.showProgress(*quiet)()
	// Files that could not be read to the end are reported, and the rest is
	// still analyzed: a partial report beats none after an incident.
	ingestErr := doIngest(ctx, e, opt)
	if ingestErr != nil && ctx.Err() != nil {
		return ingestErr
	}
	if _, statErr := ingest.ReadManifest(opt.Out); statErr != nil {
		return ingestErr
	}
	// HH:MM is on the first day of the data just ingested.
	if rf.window, err = wf.window(ctx, opt.Out, res, true); err != nil {
		return err
	}
	if err := doAnalyzeIn(ctx, e, opt.Out, res, rf.window); err != nil {
		return err
	}
	if err := doReport(ctx, e, opt.Out, rf, res); err != nil {
		var v *verdictError
		if ingestErr != nil && errors.As(err, &v) {
			// Files not read whole come first (exit 1); the contract's
			// verdict on what was read is still said.
			fmt.Fprintf(e.stderr, "infertrace run: %s\n", textsafe.Escape(v.msg))
			return ingestErr
		}
		return err
	}
	return ingestErr
}

func cmdSimulate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "simulate")
	cfg := simulate.DefaultConfig()
	fs.StringVar(&cfg.Out, "out", "", "output directory (required)")
	fs.IntVar(&cfg.Requests, "requests", cfg.Requests, "number of client requests")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "random seed; the same seed writes the same files")
	fs.StringSliceVar(&cfg.Formats, "formats", cfg.Formats, "log formats per host: bare names cycle within their tier (server formats through the replicas), TIER=FORMAT sets a tier, HOST=FORMAT pins one host (server: "+strings.Join(simulate.SupportedFormats, ", ")+"; gateway: "+strings.Join(simulate.GatewayFormats, ", ")+"; client: "+strings.Join(simulate.ClientFormats, ", ")+")")
	fs.StringSliceVar(&cfg.ColdKinds, "cold", cfg.ColdKinds, "how the late replica warms up, any of "+strings.Join(simulate.ColdKinds, ", ")+" (none: no late replica)")
	fs.DurationVar(&cfg.ColdDelay, "cold-delay", cfg.ColdDelay, "the first prefill's extra time (prefill), the model load (load), the time before serving (queue)")
	fs.DurationVar(&cfg.ColdJoinAt, "cold-join", cfg.ColdJoinAt, "when the late replica joins, after the start (e.g. 40s: a scale-up during the burst)")
	fs.IntVar(&cfg.ColdRequests, "cold-requests", cfg.ColdRequests, "how many of the late replica's first requests run slower (decode)")
	fs.Float64Var(&cfg.ColdFactor, "cold-factor", cfg.ColdFactor, "how many times slower they run, prefill and decode (decode)")
	fs.StringVar(&cfg.Routing, "routing", simulate.RouteLeastLoaded, "how requests are sent among a model's replicas: "+strings.Join(simulate.RoutingPolicies, ", "))
	fs.Float64Var(&cfg.PrefillBatchSlope, "prefill-batch-slope", 0, "prefill slows by this share per further request running on its replica, as decode does (0: prefill does not depend on the batch)")
	start := fs.String("start", cfg.Epoch.Format(time.RFC3339), "the true time the simulated traffic starts at (RFC 3339), e.g. to append one batch after another to a store")
	fs.BoolVar(&cfg.Evals, "evals", false, "also write DIR/evals.csv, an evaluation of the answers whose pass rate drops for long prompts on "+simulate.EvalsWeakModel+" (for report --evals)")
	// Incidents to inject, for infertrace compare.
	fs.Float64Var(&cfg.BurstMultiplier, "burst-multiplier", cfg.BurstMultiplier, "arrival rate during the burst over the steady rate; 1: no burst")
	fs.StringSliceVar(&cfg.Tiers, "tiers", nil, "keep only these tiers' logs (client, gateway, server), as a deployment that lacks one (default: all three)")
	fs.Float64Var(&cfg.RatePerSecond, "rate", cfg.RatePerSecond, "steady arrival rate, requests per second (the peak of the day with --diurnal)")
	fs.Float64Var(&cfg.Diurnal, "diurnal", cfg.Diurnal, "0 to <1: the rate follows the time of day (UTC), peaking at 15:00 and falling by this share at 03:00")
	fs.Float64Var(&cfg.Weekend, "weekend", cfg.Weekend, "factor on the rate on Saturdays and Sundays (UTC), e.g. 0.3 for quiet weekends")
	fs.DurationVar(&cfg.BurstStart, "burst-start", cfg.BurstStart, "when the burst starts, after the start")
	fs.DurationVar(&cfg.BurstDuration, "burst-duration", cfg.BurstDuration, "how long the burst lasts")
	regionDelay := fs.StringArray("region-delay", nil, "REGION=DURATION: extra one-way network delay on both legs of one region's clients, e.g. eu-west=150ms (repeatable; regions: "+strings.Join(simulate.RegionNames(), ", ")+")")
	fs.Float64Var(&cfg.SlowAuthRate, "slow-auth-rate", cfg.SlowAuthRate, "share of requests on the gateway's slow auth path (20-80 ms, plus --slow-auth-delay)")
	fs.DurationVar(&cfg.SlowAuthExtra, "slow-auth-delay", 0, "extra gateway time of every request on the slow auth path")
	errorMix := fs.String("errors", "", "STATUS:SHARE,...: the error mix, e.g. 500:0.01,503:0.01,429:0.005,408:0.01, in place of the default 5xx, timeouts, cancels and rate limit (500 fails in generation, 503 an overloaded server answering at once, 429 the gateway rejecting, 408 a client's short deadline, 499 a user's cancel; unnamed statuses 0)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *errorMix != "" {
		mix, err := parseErrorMix(*errorMix)
		if err != nil {
			return usageErr("--errors %q: %v", *errorMix, err)
		}
		cfg.ErrorMix = mix
	}
	for _, rd := range *regionDelay {
		name, dur, ok := strings.Cut(rd, "=")
		d, err := time.ParseDuration(dur)
		if !ok || err != nil {
			return usageErr("--region-delay %q: want REGION=DURATION, e.g. eu-west=150ms", rd)
		}
		if cfg.RegionDelay == nil {
			cfg.RegionDelay = map[string]time.Duration{}
		}
		cfg.RegionDelay[name] = d
	}
	epoch, err := time.Parse(time.RFC3339Nano, *start)
	if err != nil {
		return usageErr("--start %q: want an RFC 3339 time, e.g. 2026-11-30T10:00:00Z", *start)
	}
	cfg.Epoch = epoch
	if len(cfg.ColdKinds) == 1 && cfg.ColdKinds[0] == "none" {
		cfg.ColdKinds = nil
	}
	if cfg.Out == "" {
		return usageErr("--out DIR is required")
	}
	if err := noArgs(fs, "simulate takes only flags; the directory is --out DIR"); err != nil {
		return err
	}
	_, err = simulate.Run(ctx, cfg, e.stdout)
	var ce *simulate.ConfigError
	if errors.As(err, &ce) && simulateFlags[ce.Field] != "" {
		return usageErr("--%s %s", simulateFlags[ce.Field], ce.Problem)
	}
	return err
}

// parseErrorMix reads simulate's --errors: STATUS:SHARE pairs, comma
// separated, each status once.
func parseErrorMix(s string) (map[int]float64, error) {
	mix := map[int]float64{}
	for _, part := range strings.Split(s, ",") {
		st, sh, ok := strings.Cut(strings.TrimSpace(part), ":")
		status, err1 := strconv.Atoi(st)
		share, err2 := strconv.ParseFloat(sh, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q: want STATUS:SHARE, e.g. 503:0.01", part)
		}
		if _, dup := mix[status]; dup {
			return nil, fmt.Errorf("status %d given twice", status)
		}
		mix[status] = share
	}
	return mix, nil
}

// simulateFlags are the flags of simulate that set a Config field, by field.
var simulateFlags = map[string]string{
	"Out": "out", "Requests": "requests", "Formats": "formats", "ColdKinds": "cold", "ColdDelay": "cold-delay",
	"BurstMultiplier": "burst-multiplier", "BurstStart": "burst-start", "RatePerSecond": "rate", "Tiers": "tiers", "Diurnal": "diurnal", "Weekend": "weekend", "BurstDuration": "burst-duration", "ColdJoinAt": "cold-join", "ColdRequests": "cold-requests", "ColdFactor": "cold-factor", "RegionDelay": "region-delay", "SlowAuthRate": "slow-auth-rate", "SlowAuthExtra": "slow-auth-delay",
	"ErrorMix": "errors", "Routing": "routing", "PrefillBatchSlope": "prefill-batch-slope",
}
