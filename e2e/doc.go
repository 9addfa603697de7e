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
// once, saying why, if it does not build. Every test runs that binary as a
// process of its own, from the module root, so the bundled data set's paths
// read as in the README (testdata/native/client/*.jsonl); a test that
// interrupts a run sends the process a real SIGINT or SIGTERM, and the
// progress display is read from a pseudo-terminal (Linux).
//
// What is here: the bundled data set's reports against golden files
// (testdata/golden/ at the module root, the help texts in e2e/testdata/help),
// ground truth (simulate's stacks of every format, the analysis checked
// against the simulator's truth per request), metamorphic properties (what
// must not change when the input changes in a known way), incidents and
// calibration of compare, what-if, explain, contracts and exit statuses,
// interrupts and locks, memory limits, and the messages of bad input.
// cmd/infertrace keeps the tests of its own functions and those that need
// the command in the same process, to stop it at an exact point: an
// interrupt at each step the progress display names, and a run interrupted
// before it reads a line.
//
// Run it with
//
//	go test ./e2e
//
// (about a minute and a half on two cores; -run picks tests, -short skips
// the what-if validation, which simulates 80,000 requests). After a change to a report or
// to the help texts,
//
//	go test ./e2e -update
//
// rewrites the golden files; read the diff before committing them.
package e2e
