package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/textsafe"
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
	// stamp is what the release build was stamped with (--version).
	stamp Stamp
}

// errUsage marks errors that are the caller's words, not the data: exit 2.
var errUsage = errors.New("usage")

func usageErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

var commands = []*command{
	{"run", "run --client GLOB --gateway GLOB --server GLOB --out DIR [--by COLS] [--format md,html,json]", cmdRun},
	{"ingest", "ingest --client GLOB --gateway GLOB --server GLOB --out DIR", cmdIngest},
	{"analyze", "analyze DIR [--memory-limit 1GiB] [--threads N] [--partition I/N]", cmdAnalyze},
	{"report", "report DIR [--by model,use_case] [--format md,html,json] [--contract FILE] [--evals FILE] [--prices FILE] [--memory-limit 1GiB] [--threads N]", cmdReport},
	{"compare", "compare BASELINE_DIR TARGET_DIR | compare DIR --baseline SPEC --target SPEC [--by COLS] [--out DIR]", cmdCompare},
	{"explain", "explain DIR [REQUEST_ID...] [--client X] [--region R] [--model M] [--from T] [--to T] [--out DIR]", cmdExplain},
	// whatif (issue #15)
	{"whatif", "whatif DIR [--replicas MODEL=N|+N] [--slots MODEL=N] [--traffic X] [--contract FILE] [--from T] [--to T] [--out DIR]", cmdWhatIf},
	{"simulate", "simulate --out DIR [--requests N] [--seed S] [--formats vllm-otlp,gateway=envoy,gw-2=nginx,client=aiperf,...]", cmdSimulate},
}

// Run runs the command line args (the words after "infertrace") with stdin,
// stdout and stderr, and returns its exit status; stamp is what a release
// build was stamped with. When ctx ends, the command stops as at Ctrl-C.
// A command writes only to stdout and stderr and changes no state of the
// process, so that commands may run side by side in one (as the
// end-to-end tests run them).
func Run(ctx context.Context, stamp Stamp, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(ctx, &env{stdin: stdin, stdout: stdout, stderr: stderr, isTerminal: isTerminal, stamp: stamp}, args)
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
