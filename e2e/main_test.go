package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/ingesttest"
	"github.com/infertrace/infertrace/internal/cli"
	"github.com/infertrace/infertrace/internal/duck"
)

var update = flag.Bool("update", false, "rewrite testdata/golden")

// mainPackage is the command the tests build and run.
const mainPackage = "github.com/infertrace/infertrace/cmd/infertrace"

// exitInterrupted is infertrace's exit status when a signal stopped it
// (docs/commands.md).
const exitInterrupted = 130

// bin is the infertrace binary that TestMain built, which the tests run.
var bin string

// releaseLDFlags are the -ldflags of a release build (the Dockerfile's,
// with a made-up version and commit), with which TestMain builds bin: the
// tests run infertrace as it is released, and TestVersionStamped checks
// that the names given to -X are the variables' without a build of its
// own (a second link of the binary cost as much CPU as a dozen runs).
const releaseLDFlags = "-s -w -X main.stampedVersion=v9.8.7 -X main.stampedCommit=0123456789abcdef0123456789abcdef01234567"

// TestMain builds the infertrace binary once, as a release is built
// (releaseLDFlags, from a tree whose build information has no commit), with
// the race detector when the tests have it, and runs the tests from the
// module root, where the bundled data set's paths (testdata/native/...)
// are as a user in a checkout types them.
func TestMain(m *testing.M) {
	if os.Getenv("INFERTRACE_HOLD_OUT") != "" { // TestOutInUse's lock holder
		os.Exit(m.Run())
	}
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "infertrace-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o755) // for the process that TestUnreadableInput runs as nobody
	bin = filepath.Join(tmp, "infertrace")
	args := []string{"build", "-buildvcs=false", "-ldflags", releaseLDFlags, "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, mainPackage)
	if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: cannot build the infertrace binary the tests run: go %s: %v\n%s", strings.Join(args, " "), err, out)
		return 1
	}
	if err := os.Chdir(".."); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	code := m.Run()
	removeIncidentDirs() // compare_test.go
	removeBigRun()       // resources_test.go
	for _, dir := range sharedDirs {
		os.RemoveAll(dir)
	}
	return code
}

// sharedDirs are the directories sharedTempDir made.
var (
	sharedMu   sync.Mutex
	sharedDirs []string
)

// sharedTempDir makes a temporary directory that outlives the test that
// makes it, for what tests share (made once); TestMain removes it.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "infertrace-e2e-shared-")
	if err != nil {
		t.Fatal(err)
	}
	sharedMu.Lock()
	sharedDirs = append(sharedDirs, dir)
	sharedMu.Unlock()
	return dir
}

// runCLI runs infertrace with args, an empty standard input, from the
// module root, and returns its exit code, stdout and stderr.
//
// It runs the command in this process, through cli.Run, as the binary's
// main does (without its signal handling and os.Exit), with stdout and
// stderr of its own: the command line, the command and its outputs are
// the binary's, without the cost of a process (starting the binary and
// DuckDB). A test of what only a process shows (an exit status as the
// shell sees it, a stamped version, every byte the process writes) runs
// its commands as processes (runAsProcess); so does every test when
// $INFERTRACE_E2E_BIN is set (binEnv).
//
// Where a test does not test DuckDB's threads, its commands run with
// --threads 1 (see withThreads): the tests run in parallel on few cores,
// and one DuckDB thread per command does the same work with less
// contention (a fifth less CPU than one per core, on two cores).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if runsAsProcess(t) {
		return runBin(t, args...)
	}
	var out, errb bytes.Buffer
	code = cli.Run(context.Background(), cli.Stamp{}, withThreads(args), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// runBin is runCLI with the command a process of the built binary.
func runBin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLIStdin(t, strings.NewReader(""), args...)
}

// runCLIStdin runs infertrace with args and stdin as its standard input, a
// process of the built binary, as runBin.
func runCLIStdin(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmd(t, cliCommand(context.Background(), stdin, args...))
}

// binEnv is the environment variable that, set (to anything but ""), has
// runCLI run every command as a process of the built binary, as users run
// it: go test ./e2e with INFERTRACE_E2E_BIN=1 checks that the binary and
// the commands run in process say the same.
const binEnv = "INFERTRACE_E2E_BIN"

// processTests are the names of the tests marked by runAsProcess.
var processTests sync.Map

// runAsProcess has runCLI run the commands of t and of its subtests as
// processes of the built binary: t checks what only a process shows.
func runAsProcess(t *testing.T) {
	t.Helper()
	processTests.Store(t.Name(), true)
	t.Cleanup(func() { processTests.Delete(t.Name()) })
}

// runsAsProcess says whether runCLI runs t's commands as processes: under
// $INFERTRACE_E2E_BIN, or when t or a test it is a subtest of is marked by
// runAsProcess.
func runsAsProcess(t *testing.T) bool {
	if os.Getenv(binEnv) != "" {
		return true
	}
	for name := t.Name(); ; {
		if _, ok := processTests.Load(name); ok {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// cliCommand is the infertrace process of args, with stdin as its standard
// input; when ctx ends before the process does, it is sent SIGINT, as by
// Ctrl-C.
func cliCommand(ctx context.Context, stdin io.Reader, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, withThreads(args)...)
	cmd.Stdin = stdin
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	return cmd
}

// threadedCommands are the commands that take --threads.
var threadedCommands = map[string]bool{"analyze": true, "compare": true, "explain": true,
	"report": true, "run": true, "whatif": true}

// oneThread is the DuckDB resources of the tests' own calls into the
// packages (analyze.Summarize, analyze.RunWith, whatif.Run): one thread, as
// withThreads gives the commands they run.
var oneThread = duck.Resources{Threads: 1}

// duckOneThread is the DSN of the DuckDB the tests open themselves to read
// what a run wrote: in memory, one thread.
const duckOneThread = "?threads=1"

// withThreads is args with --threads 1 after the command when the command
// takes --threads and args do not set it: the tests run in parallel on
// two cores, where DuckDB's threads only contend, and the outputs do not
// depend on them. A test of what threads do passes --threads itself;
// "--threads 0" (one per core) keeps DuckDB's own default, as the runs
// checked against the golden report.md does (TestRunTestdata),
// and TestAnalyzeSpillsWithinMemoryLimit checks one thread's analysis of
// 50,000 requests row for row against one per core.
func withThreads(args []string) []string {
	if len(args) == 0 || !threadedCommands[args[0]] {
		return args
	}
	for _, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--threads" || strings.HasPrefix(a, "--threads=") || a == "-h" || a == "--help" {
			return args
		}
	}
	return append([]string{args[0], "--threads", "1"}, args[1:]...)
}

// runCmd runs cmd to its end and returns its exit code (-1 when a signal
// killed it), stdout and stderr; after it, cmd.ProcessState holds the
// process's resource usage.
func runCmd(t *testing.T, cmd *exec.Cmd) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("infertrace %s: %v", strings.Join(cmd.Args[1:], " "), err)
	}
	if !cmd.ProcessState.Exited() {
		t.Logf("infertrace %s: %v", strings.Join(cmd.Args[1:], " "), cmd.ProcessState)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// runTestdata runs the whole pipeline (run) on the bundled data set into
// out, with the extra flags, from the module root (see TestMain).
func runTestdata(t *testing.T, out string, extra ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCLI(t, append(append([]string{"run"}, testdataInputs...), append(extra, "--out", out)...)...)
}

// testdataInputs are the flags that name the bundled data set, from the
// module root (see TestMain).
var testdataInputs = []string{
	"--client", "testdata/native/client/*.jsonl",
	"--gateway", "testdata/native/gateway/*.jsonl",
	"--server", "testdata/native/server/*"}

// testdataStore is the bundled data set ingested and analyzed (DuckDB on
// one thread, no report), made once for the tests that only need a store
// of it to run commands on.
var testdataStore struct {
	once sync.Once
	dir  string
	err  string
}

// testdataStoreCopy returns a copy of testdataStore of the test's own: the
// commands run on it lock it, and may write into it.
func testdataStoreCopy(t *testing.T) string {
	t.Helper()
	s := &testdataStore
	s.once.Do(func() {
		s.err = "the test that ingested it stopped"
		out := filepath.Join(sharedTempDir(t), "out")
		ingestAndAnalyze(t, out, testdataInputs...)
		s.dir, s.err = out, ""
	})
	if s.err != "" {
		t.Fatal(s.err)
	}
	return ingesttest.CopyDir(t, s.dir)
}

// TestRunTestdata is the README's first command: the whole pipeline on the
// bundled data set, checked against a golden Markdown report.
func TestRunTestdata(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	// One DuckDB thread per core, as users run it: the golden report.md
	// holds for any number of threads.
	code, stdout, stderr := runTestdata(t, out, "--threads", "0")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"ingested 13 files: ",
		"report: " + filepath.Join(out, "report.md"),
		"report: " + filepath.Join(out, "report.html"),
		"report: " + filepath.Join(out, "report.json"),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// report.json by default: the figures for programs (docs/report-json.md).
	var rj struct {
		SchemaVersion string `json:"schema_version"`
		DataQuality   struct {
			Coverage struct{ Requests int64 }
		} `json:"data_quality"`
		Slices []struct {
			All      bool
			Requests int64
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "report.json")); err != nil || json.Unmarshal(b, &rj) != nil {
		t.Errorf("report.json: %v", err)
	} else if rj.SchemaVersion != "1" || len(rj.Slices) == 0 || !rj.Slices[0].All || rj.Slices[0].Requests != rj.DataQuality.Coverage.Requests || rj.Slices[0].Requests == 0 {
		t.Errorf("report.json: schema_version %q, slices %+v, %d requests covered", rj.SchemaVersion, rj.Slices, rj.DataQuality.Coverage.Requests)
	}
	// --format json,csv: those two, the slice table as one row per slice.
	if code, rout, rerr := runCLI(t, "report", "--quiet", "--format", "json,csv", out); code != 0 ||
		rout != "report: "+filepath.Join(out, "report.json")+"\nreport: "+filepath.Join(out, "slices.csv")+"\n" {
		t.Errorf("report --format json,csv: exit %d, stdout %q\n%s", code, rout, rerr)
	}
	if b, err := os.ReadFile(filepath.Join(out, "slices.csv")); err != nil ||
		!strings.HasPrefix(string(b), "slice,model,use_case,requests,failed,client_e2e_p50,") ||
		strings.Count(string(b), "\n") != 1+len(rj.Slices) {
		t.Errorf("slices.csv: %v\n%s", err, b)
	}
	// The data set has truncated lines: each is echoed with file and line.
	if !strings.Contains(stderr, "rejected testdata/native/") || !strings.Contains(stderr, "truncated record") {
		t.Errorf("stderr does not name the rejected lines:\n%s", stderr)
	}

	var m struct {
		Files []struct {
			Path                                     string
			Lines, Rows, Rejected, Duplicates, Blank int64
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var dups, rejected int64
	for _, f := range m.Files {
		if f.Lines != f.Rows+f.Rejected+f.Duplicates+f.Blank || f.Lines == 0 {
			t.Errorf("%s: line accounting does not hold: %+v", f.Path, f)
		}
		dups += f.Duplicates
		rejected += f.Rejected
	}
	if dups == 0 || rejected == 0 {
		t.Errorf("the data set should hold duplicated and truncated lines: %d duplicates, %d rejected", dups, rejected)
	}

	for _, name := range []string{"requests.parquet", "rejects.jsonl", "report.html", "client", "gateway", "server"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md = bytes.ReplaceAll(md, []byte(out), []byte("$OUT"))
	golden(t, "testdata/golden/report.md", md)
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./e2e -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("%s differs first at line %d:\n got: %s\nwant: %s\n(go test ./e2e -update rewrites it)", path, i+1, g, w)
			}
		}
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Usage: infertrace COMMAND [flags]"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"ingest", "--client", "x.jsonl"}, 2, "--out DIR is required"},
		{[]string{"ingest", "--out", "o"}, 2, "give at least one of --client, --gateway, --server"},
		{[]string{"ingest", "--out", "o", "--server", "nosuch:x"}, 2, `unknown server format "nosuch"`},
		{[]string{"ingest", "--bogus"}, 2, "unknown flag --bogus"},
		{[]string{"analyze"}, 2, "missing DIR"},
		{[]string{"report", "d", "--format", "pdf"}, 2, `--format names "pdf"`},
		{[]string{"report", "d", "--format", "json,cvs"}, 2, `--format names "cvs", which is no report format: did you mean csv?`},
		{[]string{"simulate"}, 2, "--out DIR is required"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("infertrace %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(tc.args, " "), code, stderr, tc.code, tc.want)
		}
	}
}

// TestIngestProblems: a missing input is a start-up error; a file that
// cannot be read to its end fails the command (exit 1) but keeps the rows
// of every other file.
func TestIngestProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "ingest", "--client", filepath.Join(dir, "none-*.jsonl"), "--out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(stderr, "matches no files") {
		t.Errorf("missing input: exit %d, %s", code, stderr)
	}

	good := filepath.Join(dir, "a.jsonl")
	os.WriteFile(good, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	corrupt := filepath.Join(dir, "b.jsonl.gz")
	os.WriteFile(corrupt, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 2, 3}, 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--client", filepath.Join(dir, "*.json*"), "--out", filepath.Join(dir, "out"))
	if code != 1 || !strings.Contains(stderr, "b.jsonl.gz") || !strings.Contains(stdout, "; 1 rows") {
		t.Errorf("corrupt gzip: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestFormatFlags: --envoy-format reaches the envoy format (a line only
// that format string can read gives a row), and a bad format string is an
// error before anything is read.
func TestFormatFlags(t *testing.T) {
	t.Parallel()
	ar, err := txtar.ParseFile("testdata/ingest/options/envoy_custom.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var format string
	for _, f := range ar.Files {
		switch f.Name {
		case "options":
			format = strings.TrimSpace(strings.TrimPrefix(string(f.Data), "envoy-format "))
		case "access.log":
			os.WriteFile(filepath.Join(dir, "access.log"), f.Data, 0o644)
		}
	}
	code, stdout, stderr := runCLI(t, "ingest", "--gateway", "envoy:"+filepath.Join(dir, "access.log"),
		"--envoy-format", format, "--out", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(stdout, "ingested 1 files: 5 lines = ") || strings.Contains(stdout, " 0 decoded") {
		t.Errorf("custom envoy format: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "ingest", "--gateway", "envoy:"+filepath.Join(dir, "access.log"),
		"--envoy-format", "%START_TIME% %DURATION", "--out", filepath.Join(dir, "out2"))
	if code != 1 || !strings.Contains(stderr, "%DURATION is not closed by '%'") {
		t.Errorf("bad envoy format: exit %d, stderr: %s", code, stderr)
	}
}

// TestMapFlag: --map hands a mapping file to the jsonl inputs of its tier;
// jsonl without one, or two mappings for one tier, are usage errors.
func TestMapFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "app.jsonl")
	os.WriteFile(log, []byte(`{"req":{"id":"m1","model":"llama-3-8b","stream":true},"timing":{"start_ms":1796032800123,"end_ms":1796032802500,"ttft_at":"2026-11-30T10:00:00.400Z","latency_s":2.377},"resp":{"status":200,"error":null,"id":"chatcmpl-1"},"usage":{"prompt_tokens":100,"completion_tokens":50},"tags":["chat"]}`+"\n"), 0o644)
	mapping := "testdata/mappings/client.toml"
	code, stdout, stderr := runCLI(t, "ingest", "--client", "jsonl:"+log, "--map", mapping, "--out", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(stdout, "1 decoded + 0 rejected") {
		t.Errorf("jsonl with --map: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "ingest", "--client", "jsonl:"+log, "--out", filepath.Join(dir, "out2"))
	if code != 1 || !strings.Contains(stderr, "needs a mapping file (--map FILE)") {
		t.Errorf("jsonl without --map: exit %d, stderr: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "ingest", "--client", "jsonl:"+log, "--map", mapping, "--map", "testdata/mappings/client.yaml", "--out", filepath.Join(dir, "out3"))
	if code != 2 || !strings.Contains(stderr, "are both for the client tier") {
		t.Errorf("two client mappings: exit %d, stderr: %s", code, stderr)
	}
}

// TestColonPath: a log named by its timestamp is read as a path, not as
// FORMAT:GLOB with an unknown format.
func TestColonPath(t *testing.T) {
	t.Chdir(t.TempDir())
	name := "access-2026-11-30T10:00:00.log"
	os.WriteFile(name, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--client", name, "--out", "out")
	if code != 0 || !strings.Contains(stdout, "ingested 1 files: 1 lines = 1 decoded") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestWorkersFlag: --workers takes 1 to 256 decoders; 0, a negative number
// or a number that would only cost memory is a usage error, before anything
// is read or written.
func TestWorkersFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "c.jsonl")
	os.WriteFile(log, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	for _, w := range []string{"0", "-1", "257", "100000"} {
		out := filepath.Join(dir, "out"+w)
		code, _, stderr := runCLI(t, "ingest", "--client", log, "--workers", w, "--out", out)
		if code != 2 || !strings.Contains(stderr, "--workers "+w+": want 1 to 256") {
			t.Errorf("--workers %s: exit %d, stderr: %s", w, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("--workers %s: %s was created", w, out)
		}
	}
	for _, w := range []string{"1", "256"} {
		code, stdout, stderr := runCLI(t, "ingest", "--client", log, "--workers", w, "--out", filepath.Join(dir, "out"+w))
		if code != 0 || !strings.Contains(stdout, "; 1 rows") {
			t.Errorf("--workers %s: exit %d\nstdout: %s\nstderr: %s", w, code, stdout, stderr)
		}
	}
}

// TestUnreadableInput: a directory input, or a glob in a directory, that
// cannot be read says so ("permission denied"), not "matches no files".
func TestUnreadableInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // the test's own directories, for the user below
	os.Chmod(dir, 0o755)
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	os.WriteFile(filepath.Join(logs, "c.jsonl"), []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	os.Chmod(logs, 0o311) // can be entered, not listed
	defer os.Chmod(logs, 0o755)
	// An output directory the user may write, so that what is denied is
	// the input.
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o777)
	os.Chmod(out, 0o777)
	for _, spec := range []string{logs, filepath.Join(logs, "*.jsonl")} {
		code, _, stderr := runCLIWithoutFileAccessRights(t, "ingest", "--client", spec, "--out", out)
		if code != 1 || !strings.Contains(stderr, "permission denied") || strings.Contains(stderr, "matches no files") ||
			!strings.Contains(stderr, logs+": permission denied") {
			t.Errorf("--client %s: exit %d, stderr: %s", spec, code, stderr)
		}
	}
}

// TestDirectoryInput: a directory stands for the files in it, and the user
// is told which subdirectories were not read.
func TestDirectoryInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.MkdirAll(filepath.Join(logs, "old"), 0o755)
	os.MkdirAll(filepath.Join(logs, "x"), 0o755)
	line := []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}` + "\n")
	os.WriteFile(filepath.Join(logs, "c.jsonl"), line, 0o644)
	os.WriteFile(filepath.Join(logs, "old", "c.jsonl"), line, 0o644)
	code, stdout, stderr := runCLI(t, "ingest", "--client", logs, "--out", filepath.Join(dir, "out"))
	want := "--client " + logs + ": skipped 2 subdirectories (old, x): a directory input reads only the files in it"
	if code != 0 || !strings.Contains(stdout, "ingested 1 files: ") || !strings.Contains(stderr, want) {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant in stderr: %s", code, stdout, stderr, want)
	}
}

// TestOutInUse: while another process holds an output directory, ingest,
// analyze, report and run into it fail at start with "in use" and write
// nothing; once that process is killed (no clean exit), the directory is free.
func TestOutInUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "c.jsonl")
	os.WriteFile(log, []byte(`{"request_id":"r1","start":1796032800,"end":1796032801}`+"\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, "run", "--client", log, "--out", out); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	before := listDir(t, out)

	holder := exec.Command(os.Args[0], "-test.run=^TestHelperHoldOut$")
	holder.Env = append(os.Environ(), "INFERTRACE_HOLD_OUT="+out)
	stdin, _ := holder.StdinPipe()
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("the lock holder said %q, %v", line, err)
	}
	want := fmt.Sprintf("%s is in use by another infertrace run (pid %d)", out, holder.Process.Pid)
	for _, args := range [][]string{
		{"ingest", "--client", log, "--out", out},
		{"run", "--client", log, "--out", out},
		{"analyze", out},
		{"report", out},
	} {
		code, _, stderr := runCLI(t, args...)
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("infertrace %s: exit %d, stderr: %s\nwant exit 1 and %q", args[0], code, stderr, want)
		}
	}
	if after := listDir(t, out); after != before {
		t.Errorf("the refused runs changed %s:\nbefore: %s\nafter:  %s", out, before, after)
	}
	// While an ingest runs, the previous manifest is gone: analyze and
	// report still say the directory is in use, not that it is empty.
	os.Remove(filepath.Join(out, "manifest.json"))
	for _, cmd := range []string{"analyze", "report"} {
		if code, _, stderr := runCLI(t, cmd, out); code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("infertrace %s during an ingest: exit %d, stderr: %s", cmd, code, stderr)
		}
	}

	holder.Process.Kill()
	holder.Wait()
	stdin.Close()
	if code, _, stderr := runCLI(t, "run", "--client", log, "--out", out); code != 0 {
		t.Errorf("after the holder was killed: exit %d: %s", code, stderr)
	}
}

// TestHelperHoldOut is the other process of TestOutInUse: it locks
// $INFERTRACE_HOLD_OUT as a run does, says so, and holds it until killed.
func TestHelperHoldOut(t *testing.T) {
	dir := os.Getenv("INFERTRACE_HOLD_OUT")
	if dir == "" {
		t.Skip("run by TestOutInUse")
	}
	if _, err := ingest.LockOut(dir); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// listDir lists the files under dir (but the lock file) with their sizes
// and modification times, one string to compare.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if fi, err := d.Info(); err == nil && !d.IsDir() && d.Name() != ingest.LockFile {
			fmt.Fprintf(&b, "%s:%d:%d ", strings.TrimPrefix(p, dir), fi.Size(), fi.ModTime().UnixNano())
		}
		return nil
	})
	return b.String()
}

// TestNoIngestOutput: analyze and report on a directory that holds no
// ingest output fail with exit 1 and write nothing there.
func TestNoIngestOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{dir, filepath.Join(dir, "nosuch")} {
		for _, cmd := range []string{"analyze", "report"} {
			code, stdout, stderr := runCLI(t, cmd, d)
			if code != 1 || !strings.Contains(stderr, d+" holds no ingest output") || stdout != "" {
				t.Errorf("infertrace %s %s: exit %d\nstdout: %s\nstderr: %s", cmd, d, code, stdout, stderr)
			}
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("something was written into %s: %v", dir, entries)
	}
}
