// Package e2e is infertrace's end-to-end suite: it runs the infertrace
// command as users do and checks what they see, its exit status, stdout,
// stderr and the files it writes. It holds tests only (this file says what
// they are); nothing imports it, and its tests may import any package of
// the module, to read what a run wrote (Parquet, DuckDB) or to compute what
// it should have said (simulate's ground truth, analyze's own figures).
//
// TestMain builds the binary once, with go build -o into a temporary
// directory, as a release is built (the Dockerfile's -ldflags, stamped
// v9.8.7; with -race when the tests are built with -race), and fails at
// once, saying why, if it does not build. The tests run from the module
// root, so the bundled data set's paths read as in the README
// (testdata/native/client/*.jsonl). Most run the command line in this
// process (runCLI: internal/cli.Run, what the binary's main calls, with
// stdout and stderr of their own), which checks what the commands compute
// without the cost of starting a process for each. What only a process
// shows runs the binary: exit statuses as the shell sees them, the
// stamped version, every byte written (the secrets' canaries), standard
// input, a real SIGINT or SIGTERM, the progress display on a
// pseudo-terminal (Linux), a process's peak memory, file-access rights,
// and the parts of a partitioned analysis run side by side, as an Indexed
// Job's pods run them ($JOB_COMPLETION_INDEX). With
//
//	INFERTRACE_E2E_BIN=1 go test ./e2e
//
// every command of every test runs as a process of the binary, as users
// run it.
//
// What is here: the bundled data set's reports against golden files
// (testdata/golden/ at the module root, the help texts in e2e/testdata/help),
// ground truth (simulate's stacks of every format, the analysis checked
// against the simulator's truth per request), metamorphic properties (what
// must not change when the input changes in a known way), incidents and
// calibration of compare, what-if, explain, contracts and exit statuses,
// interrupts and locks, memory limits, and the messages of bad input.
// internal/cli keeps the tests of its own functions and those that need
// the command's insides, to stop it at an exact point: an interrupt at each
// step the progress display names, and a run interrupted before it reads a
// line; cmd/infertrace the test of main's second Ctrl-C.
//
// Run it with
//
//	go test ./e2e
//
// (about four minutes of CPU; -run picks tests, -short skips the what-if
// validation, which simulates 80,000 requests). After a change to a report or to the help texts,
//
//	go test ./e2e -update
//
// rewrites the golden files; read the diff before committing them.
package e2e
