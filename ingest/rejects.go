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
)

// RawLimit is how much of a rejected line rejects.jsonl keeps.
const RawLimit = 1024

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

func (l *rejectLog) add(tier Tier, e *ParseError) error {
	rec := Reject{Tier: tier, File: e.File, Line: e.Line, Kind: Kind(e.Err), Reason: e.Err.Error(), Raw: cutRaw(e.Raw)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if l.echo != nil && l.shown < rejectsShown {
		l.shown++
		fmt.Fprintf(l.echo, "rejected %s\n", e)
	}
	return l.enc.Encode(rec)
}

func (l *rejectLog) close() error {
	if l.echo != nil && l.n > int64(l.shown) {
		fmt.Fprintf(l.echo, "… and %d more rejected lines; all are listed in rejects.jsonl\n", l.n-int64(l.shown))
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

// cutRaw keeps the first RawLimit bytes of a rejected line, with the values
// of members that can hold prompts or completions replaced by their length:
// logs carry user data, and rejects.jsonl must not copy it.
func cutRaw(raw []byte) string {
	red := redact(raw)
	if len(red) > RawLimit {
		cut := RawLimit
		for cut > 0 && !utf8.RuneStart(red[cut]) {
			cut--
		}
		red = red[:cut]
	}
	return string(bytes.ToValidUTF8(red, []byte("\uFFFD")))
}

// sensitiveKeys name JSON members whose values are user text in the logs
// infertrace reads (OpenAI-style requests, vLLM and TGI request logs,
// LiteLLM payloads, GenAI semantic conventions).
var sensitiveKeys = [][]byte{
	[]byte(`"prompt"`), []byte(`"prompts"`), []byte(`"messages"`), []byte(`"message"`), []byte(`"content"`),
	[]byte(`"completion"`), []byte(`"text"`), []byte(`"input"`), []byte(`"inputs"`), []byte(`"output"`),
	[]byte(`"response"`), []byte(`"choices"`), []byte(`"generated_text"`), []byte(`"query"`),
	[]byte(`"gen_ai.prompt"`), []byte(`"gen_ai.completion"`), []byte(`"gen_ai.input.messages"`),
	[]byte(`"gen_ai.output.messages"`),
	// TGI's "parameters" span field (stop sequences, grammar), SGLang's
	// "request_parameters" and "obj" (the request), Triton TENSORS-level data.
	[]byte(`"parameters"`), []byte(`"request_parameters"`), []byte(`"obj"`), []byte(`"tensor"`),
	// OTLP JSON attributes are {"key":…,"value":{"stringValue":…}}: the
	// member name says nothing about the text, so every string value of a
	// rejected OTLP line is hidden.
	[]byte(`"stringValue"`), []byte(`"bytesValue"`),
}

// redact works on text that may not be valid JSON (a truncated line): each
// value after a sensitive member name is replaced up to where it ends, or up
// to the end of the line.
func redact(raw []byte) []byte {
	var out []byte
	for _, key := range sensitiveKeys {
		src := raw
		if out != nil {
			src = out
		}
		if !bytes.Contains(src, key) {
			continue
		}
		var b []byte
		for {
			i := bytes.Index(src, key)
			if i < 0 {
				b = append(b, src...)
				break
			}
			j := skipSpace(src, i+len(key))
			if j >= len(src) || src[j] != ':' {
				b = append(b, src[:i+len(key)]...)
				src = src[i+len(key):]
				continue
			}
			j = skipSpace(src, j+1)
			end, quotes := len(src), 0
			if j < len(src) {
				switch src[j] {
				case '"':
					quotes = 1
					if e, _, err := scanString(src, j+1); err == nil {
						end, quotes = e+1, 2
					}
				case '{', '[':
					if e, err := skipComposite(src, j); err == nil {
						end = e
					}
				default:
					// numbers, booleans, null: no text to hide
					b = append(b, src[:j]...)
					src = src[j:]
					continue
				}
			}
			b = append(b, src[:j]...)
			b = fmt.Appendf(b, `"<redacted %d bytes>"`, end-j-quotes)
			src = src[end:]
		}
		out = b
	}
	if out == nil {
		return raw
	}
	return out
}
