package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/simulate"
	"github.com/infertrace/infertrace/ingest/textsafe"
	"github.com/infertrace/infertrace/report"
)

// command is one subcommand: its flags and what it does with them.
type command struct {
	name  string
	usage string
	run   func(ctx context.Context, env *env, args []string) error
}

type env struct {
	stdout, stderr io.Writer
}

// errUsage marks errors that are the caller's words, not the data: exit 2.
var errUsage = errors.New("usage")

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

var commands = []*command{
	{"run", "run --client GLOB --gateway GLOB --server GLOB --out DIR [--by COLS] [--format md,html]", cmdRun},
	{"ingest", "ingest --client GLOB --gateway GLOB --server GLOB --out DIR", cmdIngest},
	{"analyze", "analyze DIR [--memory-limit 1GiB] [--threads N]", cmdAnalyze},
	{"report", "report DIR [--by model,use_case] [--format md,html] [--memory-limit 1GiB] [--threads N]", cmdReport},
	{"simulate", "simulate --out DIR [--requests N] [--seed S] [--formats vllm-otlp,gateway=envoy,gw-2=nginx,client=aiperf,...]", cmdSimulate},
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, e, args[1:])
			switch {
			case err == nil:
				return 0
			case errors.Is(err, pflag.ErrHelp):
				return 0
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "infertrace %s: %s\nusage: infertrace %s\n", c.name, textsafe.Escape(strings.TrimPrefix(err.Error(), "usage: ")), c.usage)
				return 2
			default:
				fmt.Fprintf(stderr, "infertrace %s: %s\n", c.name, textsafe.Escape(err.Error()))
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "infertrace: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  infertrace %s\n", c.usage)
	}
}

func newFlags(e *env, name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.SortFlags = false
	return fs
}

func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return usageErr("%v", err)
	}
	return nil
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
	fs                      *pflag.FlagSet
}

func (f *ingestFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.client, "client", nil, "client logs, [FORMAT:]GLOB (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Client), ", ")+")")
	fs.StringArrayVar(&f.gateway, "gateway", nil, "gateway logs, [FORMAT:]GLOB (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Gateway), ", ")+")")
	fs.StringArrayVar(&f.server, "server", nil, "inference-server logs, [FORMAT:]GLOB (repeatable; formats: "+strings.Join(ingest.Formats(ingest.Server), ", ")+")")
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
}

func (f *ingestFlags) options(e *env) (ingest.Options, error) {
	if f.out == "" {
		return ingest.Options{}, usageErr("--out DIR is required")
	}
	if f.fs != nil && f.fs.Changed("workers") && (f.workers < 1 || f.workers > ingest.MaxWorkers) {
		return ingest.Options{}, usageErr("--workers %d: want 1 to %d (the default is one per core)", f.workers, ingest.MaxWorkers)
	}
	opt := ingest.Options{Out: f.out, Workers: f.workers, Log: e.stderr, ServerModel: f.serverModel, FormatOptions: map[string]string{
		"envoy-format":         f.envoyFormat,
		"nginx-format":         f.nginxFormat,
		"nginx-request-id":     f.nginxRequestID,
		"otel-request-id":      f.otelRequestID,
		"otel-gateway-service": f.otelGatewayService,
		"otel-client-service":  f.otelClientService,
	}}
	for _, tier := range []struct {
		t     ingest.Tier
		specs []string
	}{{ingest.Client, f.client}, {ingest.Gateway, f.gateway}, {ingest.Server, f.server}} {
		for _, s := range tier.specs {
			in, err := ingest.ParseInput(tier.t, s)
			if err != nil {
				return opt, usageErr("%v", err)
			}
			opt.Inputs = append(opt.Inputs, in)
		}
	}
	if len(opt.Inputs) == 0 {
		return opt, usageErr("give at least one of --client, --gateway, --server")
	}
	mappings := map[ingest.Tier]*ingest.Mapping{}
	for _, path := range f.maps {
		m, err := ingest.LoadMapping(path)
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

func doIngest(ctx context.Context, e *env, opt ingest.Options) error {
	m, err := ingest.Run(ctx, opt)
	if err != nil {
		return err
	}
	t := m.Totals()
	fmt.Fprintf(e.stdout, "ingested %d files: %d lines = %d decoded + %d rejected + %d duplicates + %d blank; %d rows\n",
		len(m.Files), t.Lines, t.Decoded, t.Rejected, t.Duplicates, t.Blank, t.Rows)
	if failed := m.Failed(); len(failed) > 0 {
		for _, f := range failed {
			fmt.Fprintf(e.stderr, "not read to the end: %s: %s\n", textsafe.Escape(f.Path), textsafe.Escape(f.Error))
		}
		return fmt.Errorf("%d of %d files could not be read to the end (their other lines were kept; see manifest.json)", len(failed), len(m.Files))
	}
	return nil
}

func cmdIngest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "ingest")
	var f ingestFlags
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	opt, err := f.options(e)
	if err != nil {
		return err
	}
	lock, err := ingest.LockOut(opt.Out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
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
	return ingest.LockOut(dir)
}

func oneDir(fs *pflag.FlagSet) (string, error) {
	if fs.NArg() != 1 {
		return "", usageErr("want one directory, the --out of ingest")
	}
	return fs.Arg(0), nil
}

// resourceFlags bound DuckDB in analyze, report and run.
type resourceFlags struct {
	memory  string
	threads int
}

func (f *resourceFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.memory, "memory-limit", "1GiB", "DuckDB memory limit (e.g. 1GiB, 1500MB); beyond it DuckDB spills to DIR/"+analyze.TempDirName)
	fs.IntVar(&f.threads, "threads", 0, "DuckDB threads (0: one per core)")
}

func (f *resourceFlags) resources() (analyze.Resources, error) {
	limit, err := analyze.ParseMemory(f.memory)
	if err != nil {
		return analyze.Resources{}, usageErr("--memory-limit: %v", err)
	}
	if f.threads < 0 {
		return analyze.Resources{}, usageErr("--threads %d: want 0 (one per core) or more", f.threads)
	}
	return analyze.Resources{MemoryLimit: limit, Threads: f.threads}, nil
}

func doAnalyze(ctx context.Context, e *env, dir string, res analyze.Resources) error {
	st, err := analyze.RunWith(ctx, dir, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "analyzed %s\n", st)
	return nil
}

func cmdAnalyze(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "analyze")
	var rsf resourceFlags
	rsf.register(fs)
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
	lock, err := lockIngested(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return doAnalyze(ctx, e, dir, res)
}

type reportFlags struct {
	by, formats []string
}

func (f *reportFlags) register(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.by, "by", []string{"model", "use_case"}, "slice the report by these columns")
	fs.StringSliceVar(&f.formats, "format", []string{"md", "html"}, "report formats to write: md, html")
}

// check refuses unknown report formats before anything is read or locked.
func (f *reportFlags) check() error {
	for _, format := range f.formats {
		if format != "md" && format != "html" {
			return usageErr("unknown --format %q (want md, html)", format)
		}
	}
	return nil
}

func doReport(ctx context.Context, e *env, dir string, f reportFlags, rs analyze.Resources) error {
	if err := f.check(); err != nil {
		return err
	}
	res, err := analyze.Summarize(ctx, dir, analyze.SummaryOptions{By: f.by, Resources: rs})
	if err != nil {
		return err
	}
	paths, err := report.WriteFiles(dir, res, f.formats)
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintf(e.stdout, "report: %s\n", p)
	}
	return nil
}

func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "report")
	var f reportFlags
	f.register(fs)
	var rsf resourceFlags
	rsf.register(fs)
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
	if err := f.check(); err != nil {
		return err
	}
	lock, err := lockIngested(dir)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	return doReport(ctx, e, dir, f, res)
}

func cmdRun(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "run")
	var inf ingestFlags
	var rf reportFlags
	inf.register(fs)
	rf.register(fs)
	var rsf resourceFlags
	rsf.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	opt, err := inf.options(e)
	if err != nil {
		return err
	}
	res, err := rsf.resources()
	if err != nil {
		return err
	}
	if err := rf.check(); err != nil {
		return err
	}
	// One lock for the three steps: no other run slips in between.
	lock, err := ingest.LockOut(opt.Out)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// Files that could not be read to the end are reported, and the rest is
	// still analyzed: a partial report beats none after an incident.
	ingestErr := doIngest(ctx, e, opt)
	if ingestErr != nil && ctx.Err() != nil {
		return ingestErr
	}
	if _, statErr := ingest.ReadManifest(opt.Out); statErr != nil {
		return ingestErr
	}
	if err := doAnalyze(ctx, e, opt.Out, res); err != nil {
		return err
	}
	if err := doReport(ctx, e, opt.Out, rf, res); err != nil {
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
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(cfg.ColdKinds) == 1 && cfg.ColdKinds[0] == "none" {
		cfg.ColdKinds = nil
	}
	if cfg.Out == "" {
		return usageErr("--out DIR is required")
	}
	if fs.NArg() > 0 {
		return usageErr("unexpected argument %q", fs.Arg(0))
	}
	_, err := simulate.Run(ctx, cfg, e.stdout)
	return err
}
