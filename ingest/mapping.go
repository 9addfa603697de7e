package ingest

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// Mapped formats of Run's inputs: each input with a mapping has a format of
// its own (workers keep one parser per format), found here by readFile's
// first-line check.
var (
	mappedMu      sync.Mutex
	mappedFormats = map[*record.Format]*Mapping{}
)

// mappedFormat gives the format of an input with a mapping (nil without
// one), and refuses the format that reads through mappings without one and
// a mapping with another format.
func mappedFormat(in Input) (*record.Format, error) {
	m := in.Mapping
	name := record.MappingFormat()
	switch {
	case m == nil && in.Format != "" && in.Format == name:
		return nil, fmt.Errorf("--%s %s:%s: the %s format needs a mapping file (--map FILE)", in.Tier, in.Format, in.Pattern, name)
	case m == nil:
		return nil, nil
	case in.Format != "" && in.Format != m.Format.Name:
		return nil, fmt.Errorf("--%s %s:%s: a mapping (%s) is for the %s format only", in.Tier, in.Format, in.Pattern, m.File, m.Format.Name)
	case m.Tier != in.Tier:
		return nil, fmt.Errorf("--%s %s: mapping %s is for the %s tier", in.Tier, in.Pattern, m.File, m.Tier)
	}
	mappedMu.Lock()
	mappedFormats[m.Format] = m
	mappedMu.Unlock()
	return m.Format, nil
}

func mappingOf(f *record.Format) *Mapping {
	mappedMu.Lock()
	defer mappedMu.Unlock()
	return mappedFormats[f]
}

// checkMappedFile checks a mapped input's first JSON object line against
// its mapping. On a mismatch every line of the file is counted as
// rejected, under one reject naming the file, and the returned error is
// the file's.
func checkMappedFile(s *source, c *chunker, rejects *rejectLog) error {
	m := mappingOf(s.format)
	if m == nil {
		return nil
	}
	if first, err := c.peekFirstLine(); err != nil || first == nil {
		return err
	}
	line, n := firstObjectLine(c)
	if line == nil {
		return nil // no line of the first chunk is a JSON object: each is rejected as it comes
	}
	err := m.Check(line)
	if err == nil {
		return nil
	}
	rejectWholeFile(s, c, rejects, n, line, fmt.Errorf("mapping %s: %w", m.File, err))
	return readWholeError{fmt.Errorf("%s:%d: mapping %s: %w", s.stats.Path, n, m.File, err)}
}

// readWholeError is the error of a file read to its end but not decoded
// (its lines are counted as rejected): the manifest does not mark it
// Incomplete.
type readWholeError struct{ error }

func (e readWholeError) Unwrap() error { return e.error }

// firstObjectLine finds the first line of the peeked chunk that is a JSON
// object, and its number.
func firstObjectLine(c *chunker) ([]byte, int64) {
	p := c.pending
	if p == nil {
		return nil, 0
	}
	data, n := p.data, p.firstLine
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if line = bytes.TrimSpace(line); len(line) > 0 && scan.Object(line, func([]byte, bool, scan.Value) error { return nil }) == nil {
			return line, n
		}
		n++
	}
	return nil, 0
}
