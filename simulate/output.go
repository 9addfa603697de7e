package simulate

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Time formats a host can write.
const (
	FormatRFC3339UTC    = "rfc3339-utc"    // "2026-11-30T10:00:00.123456Z"
	FormatRFC3339Offset = "rfc3339-+01:00" // "2026-11-30T11:00:00.123456+01:00"
	FormatEpochSeconds  = "epoch-seconds"  // 1796032800.123456
)

var plusOne = time.FixedZone("", 3600)

// HostClock describes how one host's clock differs from true time: a written
// time is true + Offset + DriftPPM·1e-6·(true − Config.Epoch).
type HostClock struct {
	Tier     string // "client", "gateway" or "server"
	Host     string
	Offset   time.Duration
	DriftPPM float64
	Format   string // one of the Format* constants
}

// Read converts a true time to what this host's clock shows.
func (h HostClock) Read(epoch, t time.Time) time.Time {
	d := t.Sub(epoch)
	return t.Add(h.Offset + time.Duration(float64(d)*h.DriftPPM*1e-6))
}

// hostNs returns the host clock reading, in Unix ns, of true time t (ns
// since epoch).
func (h *HostClock) hostNs(epochNs, t int64) int64 {
	return epochNs + t + int64(h.Offset) + int64(float64(t)*h.DriftPPM*1e-6)
}

// appendTime appends the JSON value of true time t (ns since epoch) on this
// host's clock, rounded to the microsecond.
func (h *HostClock) appendTime(b []byte, epochNs, t int64) []byte {
	ns := h.hostNs(epochNs, t)
	us := ns / 1000
	if r := ns % 1000; r >= 500 {
		us++
	} else if r < -500 {
		us--
	}
	switch h.Format {
	case FormatEpochSeconds:
		sec, frac := us/1e6, us%1e6
		if frac < 0 {
			sec, frac = sec-1, frac+1e6
		}
		b = strconv.AppendInt(b, sec, 10)
		b = append(b, '.')
		s := strconv.FormatInt(frac, 10)
		for i := len(s); i < 6; i++ {
			b = append(b, '0')
		}
		return append(b, s...)
	case FormatRFC3339Offset:
		b = append(b, '"')
		b = time.UnixMicro(us).In(plusOne).AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		return append(b, '"')
	default:
		b = append(b, '"')
		b = time.UnixMicro(us).UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z07:00")
		return append(b, '"')
	}
}

// jsonLine builds one JSON object with a fixed key order.
type jsonLine struct {
	b       []byte
	clock   *HostClock
	epochNs int64
}

func (j *jsonLine) reset(c *HostClock, epochNs int64) {
	j.b = append(j.b[:0], '{')
	j.clock, j.epochNs = c, epochNs
}

func (j *jsonLine) key(k string) {
	if len(j.b) > 1 {
		j.b = append(j.b, ',')
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}

func (j *jsonLine) str(k, v string) { j.key(k); j.b = strconv.AppendQuote(j.b, v) }
func (j *jsonLine) num(k string, v int) {
	j.key(k)
	j.b = strconv.AppendInt(j.b, int64(v), 10)
}
func (j *jsonLine) boolean(k string, v bool) { j.key(k); j.b = strconv.AppendBool(j.b, v) }
func (j *jsonLine) time(k string, t int64) {
	j.key(k)
	j.b = j.clock.appendTime(j.b, j.epochNs, t)
}
func (j *jsonLine) done() []byte { j.b = append(j.b, '}', '\n'); return j.b }

// Record fates.
const (
	fateOK = iota
	fateLost
	fateTruncated
	fateDuplicated
)

type pendingDup struct {
	line  []byte
	after int // regular lines still to write before this copy
}

// hostFile is one host's log file.
type hostFile struct {
	clock   HostClock
	rel     string
	f       *os.File
	gz      *gzip.Writer
	w       *bufio.Writer
	lines   int // physical lines, including duplicates and truncated ones
	records int // intact records, each counted once
	dups    []pendingDup
	err     error
	// holdFirstCut keeps a truncated line from being the first line of the
	// file (formats that are recognised by their first line); heldCut holds
	// such lines until an intact one is written.
	holdFirstCut bool
	heldCut      []byte
}

// createHostFile creates <out>/<tier>/<name>[.gz] for one host. Files the
// same host may have written in an earlier run under another name (the other
// compression, another server format) are removed: readers given the
// directory would see both.
func createHostFile(out string, clock HostClock, name string, stale []string, gz bool) (*hostFile, error) {
	stale = append([]string{name}, stale...)
	if gz {
		name += ".gz"
	}
	rel := filepath.Join(clock.Tier, name)
	if err := os.MkdirAll(filepath.Join(out, clock.Tier), 0o755); err != nil {
		return nil, err
	}
	for _, other := range stale {
		for _, o := range []string{other, other + ".gz"} {
			if o == name {
				continue
			}
			if err := os.Remove(filepath.Join(out, clock.Tier, o)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	f, err := os.Create(filepath.Join(out, rel))
	if err != nil {
		return nil, err
	}
	hf := &hostFile{clock: clock, rel: rel, f: f}
	var w io.Writer = f
	if gz {
		hf.gz = gzip.NewWriter(f) // zero header ModTime: reproducible bytes
		w = hf.gz
	}
	hf.w = bufio.NewWriterSize(w, 64<<10)
	return hf, nil
}

func (h *hostFile) writeRaw(line []byte) {
	if h.err != nil {
		return
	}
	_, h.err = h.w.Write(line)
	h.lines++
}

// write writes one record line (ending in '\n') with the given fate, then
// releases any held-back duplicates that are due. It draws from rng where
// the fate needs it (the cut of a truncated line, the distance of a
// duplicate), exactly as the server formats' writers draw through drawFate.
func (h *hostFile) write(line []byte, fate int, rng *rand.Rand) {
	cut, after := drawFate(fate, len(line), rng)
	h.writeDrawn(line, fate, cut, len(line), after, 1)
}

// drawFate draws what a fate needs for a line of n bytes: where a truncated
// line is cut (1..n-2) and after how many lines a duplicate's copy comes.
func drawFate(fate, n int, rng *rand.Rand) (cut, after int) {
	switch fate {
	case fateTruncated:
		cut = 1 + rng.IntN(n-2)
	case fateDuplicated:
		after = rng.IntN(4)
	}
	return cut, after
}

// scaleCut maps a cut drawn for a line of n bytes to a line of m bytes, so
// that a format whose lines differ in length from the native ones cuts at
// the same relative place (1..m-2) without drawing differently.
func scaleCut(cut, n, m int) int {
	if n <= 2 || m <= 2 {
		return 1
	}
	return 1 + (cut-1)*(m-2)/(n-2)
}

// writeDrawn writes a line holding records intact records with a fate
// already drawn: cut was drawn for a line of n bytes. It returns the line
// number of the intact line (0 when the line was lost or cut).
func (h *hostFile) writeDrawn(line []byte, fate, cut, n, after, records int) (lineNo int) {
	switch fate {
	case fateLost:
		return 0
	case fateTruncated:
		// Cut somewhere before the closing brace; the newline keeps the next
		// line intact. A prefix of an object without its '}' never parses.
		c := cut
		if n != len(line) {
			c = scaleCut(cut, n, len(line))
		}
		if h.holdFirstCut && h.lines == 0 {
			// A format read by sniffing its first line: keep the cut line
			// until an intact one is written first.
			h.heldCut = append(append(h.heldCut, line[:c]...), '\n')
			return 0
		}
		h.writeRaw(line[:c])
		h.writeRaw([]byte{'\n'})
		h.lines-- // the newline completes the same physical line
	case fateDuplicated:
		h.records += records
		h.writeRaw(line)
		lineNo = h.lines
		h.releaseHeld()
		if after == 0 {
			h.writeRaw(line)
		} else {
			h.dups = append(h.dups, pendingDup{line: append([]byte(nil), line...), after: after})
		}
		return lineNo // do not count this write toward held-back copies
	default:
		h.records += records
		h.writeRaw(line)
		lineNo = h.lines
		h.releaseHeld()
	}
	if fate == fateTruncated || len(h.dups) == 0 {
		return lineNo
	}
	keep := h.dups[:0]
	for _, d := range h.dups {
		d.after--
		if d.after <= 0 {
			h.writeRaw(d.line)
		} else {
			keep = append(keep, d)
		}
	}
	h.dups = keep
	return lineNo
}

// releaseHeld writes the cut lines held back for the first line.
func (h *hostFile) releaseHeld() {
	if len(h.heldCut) == 0 {
		return
	}
	for _, l := range bytes.SplitAfter(h.heldCut, []byte{'\n'}) {
		if len(l) > 0 {
			h.writeRaw(l)
		}
	}
	h.heldCut = nil
}

func (h *hostFile) close() error {
	for _, d := range h.dups {
		h.writeRaw(d.line)
	}
	h.dups = nil
	h.releaseHeld()
	err := h.err
	if e := h.w.Flush(); err == nil {
		err = e
	}
	if h.gz != nil {
		if e := h.gz.Close(); err == nil {
			err = e
		}
	}
	if e := h.f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", h.rel, err)
	}
	return nil
}
