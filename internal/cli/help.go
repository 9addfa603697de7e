package cli

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/suggest"
)

// commandDoc is what --help says of a command beyond its usage line and
// flags (which come from the command table and its flag set).
type commandDoc struct {
	summary string      // one line, for infertrace --help
	about   string      // a paragraph: what the command does
	args    [][2]string // positional arguments: name, meaning
	example string
}

// docs holds the help of every command in the table, by name.
var docs = map[string]commandDoc{
	"run": {
		summary: "ingest, analyze and report in one go",
		about: "Reads the logs named by --client, --gateway and --server into DIR (as ingest does), joins them into " +
			"DIR/requests.parquet (as analyze does) and writes DIR/report.md, DIR/report.html and DIR/report.json (as report does). " +
			"A file that cannot be read to its end is named and the command exits 1, but the rest is still " +
			"analyzed and reported.",
		example: "infertrace run --client sim/client --gateway sim/gateway --server sim/server --out out",
	},
	"ingest": {
		summary: "read each tier's logs into DIR/<tier>/*.parquet, every line accounted for",
		about: "Streams the logs named by --client, --gateway and --server (at least one) into DIR/<tier>/*.parquet, " +
			"with every line accounted for in DIR/manifest.json and every rejected line in DIR/rejects.jsonl. " +
			"Each of the three flags may be repeated and takes GLOB or FORMAT:GLOB; without a format it is sniffed " +
			"from each file. A directory stands for the files in it. Input may be gzip or zstd compressed. " +
			"With --append the logs are added to the store in DIR as a new batch: files it holds already are skipped, " +
			"and earlier batches are not read again.",
		example: "infertrace ingest --client 'logs/client/*.jsonl' --gateway nginx:logs/access.log.gz --server vllm-otlp:logs/traces.jsonl --out out",
	},
	"analyze": {
		summary: "join the tiers by request ID into DIR/requests.parquet",
		about: "Joins the tiers ingested into DIR by request ID in DuckDB and writes DIR/requests.parquet: one row " +
			"per request, its latency split into network, application, queue and model. --from and --to keep the " +
			"requests that start in [FROM, TO) and read only the tiers' rows within 10 minutes of it. --partition I/N " +
			"analyzes one of N parts of the store (one job of N, e.g. a Kubernetes Indexed Job) into " +
			"DIR/requests/part-I-of-N.parquet; report, compare, explain and whatif read the N parts once all are there. " +
			"Parts cut inside a session (traffic that never pauses, cut at midnight) need each other's facts: run " +
			"analyze --facts for every part first (docs/partitions.md).",
		args:    [][2]string{{"DIR", "the --out directory of an ingest"}},
		example: "infertrace analyze out",
	},
	"report": {
		summary: "write DIR/report.md, report.html and report.json from an analyzed DIR",
		about: "Writes DIR/report.md and DIR/report.html: percentiles with sample counts and windows per workload " +
			"slice, where the time went, and how each metric was measured; DIR/report.json holds the same figures " +
			"for programs (docs/report-json.md), and --format csv adds DIR/slices.csv, the slice table. --from and --to report the requests that " +
			"start in [FROM, TO), within the window DIR was analyzed for. " +
			"With --period day or week (--weekly), " +
			"also the trend of each slice over the days or weeks in the data: per period its headline figures with " +
			"n and window, and their changes from the previous period, largest first, each beyond the noise or not.",
		args:    [][2]string{{"DIR", "the --out directory of an ingest, analyzed since (infertrace analyze DIR)"}},
		example: "infertrace report --by model,replica --format md out",
	},
	"compare": {
		summary: "compare a baseline with a target: per slice, what changed beyond the noise, and why",
		about: "Compares two analyzed DIRs (last week, this week), two time windows of one DIR (--baseline 10:00-10:30 " +
			"--target 10:30-11:00), or two values of a slice column in one DIR (--baseline model=a --target model=b). " +
			"Per slice it shows the P50, P95 and P99 of client E2E, client TTFT, per-user tokens/s and every " +
			"attribution component on both sides with their sample counts, the change and its 95% interval; the " +
			"findings first, largest impact first, name the component that moved and where (model, region, use " +
			"case, gateway, replica or client). With --contract (and --evals, --prices) the verdict comes first: " +
			"each constraint measured on both sides, in the contract's order, improved, unchanged or worsened and " +
			"whether within its may_worsen allowance; accept only when quality holds and every worsening is allowed.",
		args:    [][2]string{{"DIR", "one or two analyzed DIRs (infertrace analyze DIR)"}},
		example: "infertrace compare out --baseline 10:00-10:30 --target 10:30-11:00 --out out/compare",
	},
	"explain": {
		summary: "explain single requests: a waterfall across the tiers, components against the slice, context",
		about: "For each request named by ID, or the slowest matching --client, --region, --model and --from/--to: " +
			"a waterfall of its time on each tier on the gateway's clock, with each host's clock offset against " +
			"the gateway estimated from the data (a request cannot reach a tier before it left the previous one) " +
			"and its uncertainty; its components beside the P50 and P95 of its slice (--by, default model and use " +
			"case); its context at arrival (phase, concurrency and queue depth on its replica, retries) and the log lines behind it.",
		args:    [][2]string{{"DIR", "an analyzed DIR (infertrace analyze DIR)"}, {"REQUEST_ID", "requests to explain (else the filters pick the slowest)"}},
		example: "infertrace explain out --region eu-west --from 10:30 --to 11:00 --limit 3",
	},
	// whatif (issue #15)
	"whatif": {
		summary: "replay the logged traffic through a changed pool: more replicas, more slots, more traffic",
		about: "Replays the requests of an analyzed DIR, at their logged arrivals, through a discrete-event model of " +
			"the serving pool estimated from the logs (routing among replicas, each replica's slots and when it " +
			"appeared, each request's prefill and decode time with decoding's slowdown as the batch grows, fitted " +
			"per model and replica). First the unchanged pool: it must reproduce the logged P50 and P95 of queue, " +
			"TTFT and E2E per model within 10% (or 5 ms), else the output says the model does not fit and predicts " +
			"nothing for it. Then the pool with the changes: --replicas MODEL=N or MODEL=+N, --slots MODEL=N, " +
			"--traffic X (the same requests, arriving X times as fast). Per model: logged, as-is replay and predicted " +
			"P50/P95/P99, with n and window, then the pool's estimate and its evidence. With --contract, the fewest " +
			"replicas to add for its server queue, TTFT and E2E percentiles to hold, searched one replica at a time.",
		args:    [][2]string{{"DIR", "an analyzed DIR (infertrace analyze DIR)"}},
		example: "infertrace whatif out --replicas llama-3.1-70b=+1 --traffic 1.5",
	},
	"simulate": {
		summary: "write the logs of a simulated serving stack, with known ground truth",
		about: "Writes the logs of a simulated serving stack (clients, gateways, inference servers) into " +
			"DIR/client, DIR/gateway and DIR/server, and the true split of every request's latency into " +
			"DIR/truth.parquet, to try infertrace without production data.",
		example: "infertrace simulate --out sim --requests 2000 --formats vllm-otlp,gateway=envoy",
	},
}

// helpWidth is the width help text is wrapped to.
const helpWidth = 100

// printUsage writes infertrace --help: every command with one line, and
// an example.
func printUsage(w io.Writer) {
	fmt.Fprintln(w, "infertrace finds where the time of LLM requests went: on the network, in the gateway,")
	fmt.Fprintln(w, "waiting in the inference server's queue, or in the model.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: infertrace COMMAND [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, docs[c.name].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Example, on simulated logs:")
	fmt.Fprintln(w, "  infertrace simulate --out sim")
	fmt.Fprintln(w, "  "+docs["run"].example)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'infertrace COMMAND --help' for a command's arguments, flags and an example,")
	fmt.Fprintln(w, "and 'infertrace --version' for the versions of infertrace and DuckDB.")
}

// printCommandHelp writes infertrace NAME --help: the usage line, what the
// command does, its arguments, its flags with their defaults, an example.
func printCommandHelp(w io.Writer, c *command, fs *pflag.FlagSet) {
	d := docs[c.name]
	fmt.Fprintf(w, "Usage: infertrace %s\n\n", c.usage)
	fmt.Fprint(w, wrap(d.about, "", helpWidth))
	if len(d.args) > 0 {
		fmt.Fprintln(w, "\nArguments:")
		for _, a := range d.args {
			fmt.Fprintf(w, "  %s  %s\n", a[0], a[1])
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
	fmt.Fprintf(w, "\nExample:\n  %s\n", d.example)
}

// flagArgs names the value of each flag in help, where its type would say
// too little; a flag whose usage holds a `NAME` in back quotes (pflag's
// convention) is named by it.
var flagArgs = map[string]string{
	"client": "[FORMAT:]GLOB", "gateway": "[FORMAT:]GLOB", "server": "[FORMAT:]GLOB",
	"out": "DIR", "workers": "N", "map": "FILE",
	"server-model": "NAME", "timezone": "[TIER=]ZONE", "prefix": "REGEX", "by": "COLS", "format": "FORMATS", "memory-limit": "SIZE", "threads": "N",
	"requests": "N", "seed": "S", "start": "TIME", "formats": "FORMATS", "cold": "KINDS", "cold-delay": "DURATION",
}

// flagArg is the placeholder of f's value in help and in errors ("" for a
// boolean flag).
func flagArg(f *pflag.Flag) string {
	for _, o := range ingest.FormatOptions() {
		if o.Name == f.Name && o.Value != "" {
			return o.Value
		}
	}
	name, _ := pflag.UnquoteUsage(f)
	if strings.Contains(f.Usage, "`") {
		return name
	}
	if a, ok := flagArgs[f.Name]; ok {
		return a
	}
	switch name {
	case "":
		return ""
	case "int", "uint", "int32", "uint32":
		return "N"
	case "strings", "stringArray":
		return "LIST"
	}
	return strings.ToUpper(name)
}

// printFlags lists the flags of fs, each with its value's placeholder, what
// it does and its default.
func printFlags(w io.Writer, fs *pflag.FlagSet) {
	type row struct{ name, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := "    --" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", --" + f.Name
		}
		if a := flagArg(f); a != "" {
			name += " " + a
		}
		_, usage := pflag.UnquoteUsage(f)
		if d := flagDefault(f); d != "" && !strings.Contains(usage, "(default") {
			usage += " (default: " + d + ")"
		}
		rows = append(rows, row{name, usage})
		if len(name) <= 30 {
			width = max(width, len(name))
		}
	})
	indent := strings.Repeat(" ", 2+width+2)
	for _, r := range rows {
		if len(r.name) > width {
			fmt.Fprintf(w, "  %s\n%s", r.name, wrap(r.usage, indent, helpWidth))
			continue
		}
		text := wrap(r.usage, indent, helpWidth)
		fmt.Fprintf(w, "  %-*s  %s", width, r.name, strings.TrimPrefix(text, indent))
	}
}

// flagDefault is f's default as help shows it: "" for none, a list without
// brackets.
func flagDefault(f *pflag.Flag) string {
	d := f.DefValue
	switch f.Value.Type() {
	case "stringSlice", "stringArray", "intSlice":
		d = strings.TrimSuffix(strings.TrimPrefix(d, "["), "]")
	case "bool":
		if d == "false" {
			return ""
		}
	case "int", "int64", "uint", "float64":
		if d == "0" {
			return ""
		}
	}
	return d
}

// wrap breaks text into lines of at most width bytes (but for words longer
// than that), each starting with indent.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, word := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(word) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
	return b.String()
}

// printVersion writes infertrace --version: the module's version, or the
// commit of a development build, and the version of DuckDB it links.
func printVersion(ctx context.Context, e *env) int {
	bi, _ := debug.ReadBuildInfo()
	duckdb, err := analyze.DuckDBVersion(ctx)
	if err != nil {
		fmt.Fprintf(e.stderr, "infertrace: cannot tell the DuckDB version: %v\n", err)
		return 1
	}
	fmt.Fprint(e.stdout, versionText(bi, e.stamp, duckdb))
	return 0
}

// Stamp is the version and commit a release build was stamped with
// (cmd/infertrace's stampedVersion and stampedCommit), for a build whose
// information cannot say them.
type Stamp struct{ Version, Commit string }

// duckdbDriver is the module of the DuckDB driver, whose version --version
// shows beside DuckDB's.
const duckdbDriver = "github.com/duckdb/duckdb-go/v2"

// versionText says which infertrace this is (bi: its build information,
// nil if none; st: what a release build was stamped with, where bi does
// not say it) and which DuckDB it runs.
func versionText(bi *debug.BuildInfo, st Stamp, duckdb string) string {
	var b strings.Builder
	b.WriteString("infertrace ")
	driver := ""
	switch {
	case bi == nil && st.Version == "":
		b.WriteString("(unknown version: built without module information)")
	case bi == nil:
		b.WriteString(st.Version)
		if st.Commit != "" {
			fmt.Fprintf(&b, ", commit %.12s", st.Commit)
		}
	default:
		v := bi.Main.Version
		if (v == "" || v == "(devel)") && st.Version != "" {
			v = st.Version
		}
		if v == "" {
			v = "(devel)"
		}
		b.WriteString(v)
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if settings["vcs.revision"] == "" && st.Commit != "" {
			settings["vcs.revision"] = st.Commit
		}
		if rev := settings["vcs.revision"]; rev != "" {
			fmt.Fprintf(&b, ", commit %.12s", rev)
			if t := settings["vcs.time"]; t != "" {
				b.WriteString(" of " + t)
			}
			if settings["vcs.modified"] == "true" {
				b.WriteString(", with uncommitted changes")
			}
		}
		if bi.GoVersion != "" {
			b.WriteString(", built with " + bi.GoVersion)
		}
		for _, d := range bi.Deps {
			if d.Path == duckdbDriver {
				if d.Replace != nil {
					d = d.Replace
				}
				driver = d.Path + " " + d.Version
			}
		}
	}
	b.WriteString("\nDuckDB " + duckdb)
	if driver != "" {
		b.WriteString(", through " + driver)
	}
	b.WriteString("\n")
	return b.String()
}

// flagNames lists the long names of the flags of fs, in their order.
func flagNames(fs *pflag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}

// didYouMean is ": did you mean X?" for the candidate nearest word, or "".
func didYouMean(word string, candidates []string, prefix string) string {
	if c, ok := suggest.Nearest(word, candidates); ok {
		return ": did you mean " + prefix + c + "?"
	}
	return ""
}
