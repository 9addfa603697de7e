package formats

import (
	"bytes"
	"regexp"

	"github.com/infertrace/infertrace/ingest/record"
)

// Helpers shared by the readers of servers' text logs (vllm-log, the
// Ollama and SGLang text readers): removing ANSI colour codes, cutting
// known words off a line, and logLineError, a malformed log line.

// ansiEscape matches an ANSI escape sequence, such as the colour codes a
// logger writes around the level when its output is a terminal: ESC
// itself, or ESC as it reaches a file written out ("#033", syslog's escape
// of control characters; "^[", the caret notation of cat -v and of
// terminals a log is copied from).
var ansiEscape = regexp.MustCompile("(?:\x1b|#033|\\^\\[)\\[[0-9;]*[A-Za-z]")

// stripANSI returns line without its ANSI escape sequences.
func stripANSI(line []byte) []byte {
	if bytes.IndexByte(line, 0x1b) >= 0 || bytes.Contains(line, []byte("#033[")) || bytes.Contains(line, []byte("^[[")) {
		return ansiEscape.ReplaceAll(line, nil)
	}
	return line
}

// logLineError is a malformed text log line (vLLM, Ollama, SGLang); Kind
// "syntax".
type logLineError string

func (e logLineError) Error() string { return string(e) }

func (e logLineError) Unwrap() error { return record.ErrSyntax }

// cutPrefix removes prefix from the start of *b, reporting whether it was
// there.
func cutPrefix(b *[]byte, prefix string) bool {
	rest, ok := bytes.CutPrefix(*b, []byte(prefix))
	if ok {
		*b = rest
	}
	return ok
}

// cutSuffix removes suffix from the end of *b, reporting whether it was
// there.
func cutSuffix(b *[]byte, suffix string) bool {
	rest, ok := bytes.CutSuffix(*b, []byte(suffix))
	if ok {
		*b = rest
	}
	return ok
}
