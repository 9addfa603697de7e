package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// Reject is one line of DIR/rejects.jsonl.
type Reject struct {
	Tier   Tier   `json:"tier"`
	File   string `json:"file"`
	Line   int64  `json:"line"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	Raw    string `json:"raw"`
}

// rejectLog appends rejects to rejects.jsonl from every worker, and echoes
// the first few to the user.
type rejectLog struct {
	mu    sync.Mutex
	path  string // written as path.tmp, renamed by close
	f     *os.File
	w     *bufio.Writer
	enc   *json.Encoder
	echo  io.Writer
	shown int
	n     int64
	quiet int64 // of n, not echoed
}

const rejectsShown = 10

func newRejectLog(path string, echo io.Writer) (*rejectLog, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &rejectLog{path: path, f: f, w: w, enc: enc, echo: echo}, nil
}

// add records a reject of a file read with format f (nil when none was).
func (l *rejectLog) add(tier Tier, f *record.Format, e *ParseError) error {
	return l.record(tier, f, e, true)
}

// addQuiet records a reject the user is told of otherwise (a file whose
// format cannot be told), without echoing it.
func (l *rejectLog) addQuiet(tier Tier, f *record.Format, e *ParseError) error {
	return l.record(tier, f, e, false)
}

func (l *rejectLog) record(tier Tier, f *record.Format, e *ParseError, echo bool) error {
	var paths []string
	if f != nil {
		paths = f.ReadPaths
	}
	rec := Reject{Tier: tier, File: e.File, Line: e.Line, Kind: Kind(e.Err), Reason: record.ShortReason(e.Err.Error()), Raw: cutRaw(e.Raw, paths)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if !echo {
		l.quiet++
	}
	if echo && l.echo != nil && l.shown < rejectsShown {
		l.shown++
		fmt.Fprintf(l.echo, "rejected %s:%d: %s\n", textsafe.Escape(e.File), e.Line, rec.Reason)
	}
	return l.enc.Encode(rec)
}

func (l *rejectLog) close() error {
	if more := l.n - l.quiet - int64(l.shown); l.echo != nil && more > 0 {
		fmt.Fprintf(l.echo, "… and %d more rejected lines; all are listed in rejects.jsonl\n", more)
	}
	if err := l.w.Flush(); err != nil {
		l.f.Close()
		return err
	}
	if err := l.f.Close(); err != nil {
		return err
	}
	return os.Rename(l.path+".tmp", l.path)
}

// discard closes and removes the rejects of a run that did not finish.
func (l *rejectLog) discard() {
	l.f.Close()
	os.Remove(l.path + ".tmp")
}

// cutRaw keeps the first RawLimit bytes of a rejected line, redacted (see
// redact): logs carry user data, and rejects.jsonl must not copy it.
func cutRaw(raw []byte, paths []string) string {
	red := redact(raw, paths)
	if len(red) > RawLimit {
		cut := RawLimit
		for cut > 0 && !utf8.RuneStart(red[cut]) {
			cut--
		}
		red = red[:cut]
	}
	return string(bytes.ToValidUTF8(red, []byte("\uFFFD")))
}

// lockedWriter serialises writes to a writer that is not safe for
// concurrent use (a bytes.Buffer, a terminal shared with a progress bar),
// so each message reaches it whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
