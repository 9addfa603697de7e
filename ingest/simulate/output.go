package simulate

import (
	"bufio"
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
}

func createHostFile(out string, clock HostClock, gz bool) (*hostFile, error) {
	name := clock.Host + ".jsonl"
	if gz {
		name += ".gz"
	}
	rel := filepath.Join(clock.Tier, name)
	if err := os.MkdirAll(filepath.Join(out, clock.Tier), 0o755); err != nil {
		return nil, err
	}
	// A previous run may have written this host's log with the other
	// compression; readers would see both.
	other := filepath.Join(out, clock.Tier, clock.Host+".jsonl")
	if !gz {
		other += ".gz"
	}
	if err := os.Remove(other); err != nil && !os.IsNotExist(err) {
		return nil, err
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
// releases any held-back duplicates that are due.
func (h *hostFile) write(line []byte, fate int, rng *rand.Rand) {
	switch fate {
	case fateLost:
		return
	case fateTruncated:
		// Cut somewhere before the closing brace; the newline keeps the next
		// line intact. A prefix of an object without its '}' never parses.
		cut := 1 + rng.IntN(len(line)-2)
		h.writeRaw(line[:cut])
		h.writeRaw([]byte{'\n'})
		h.lines-- // the newline completes the same physical line
	case fateDuplicated:
		h.records++
		h.writeRaw(line)
		if after := rng.IntN(4); after == 0 {
			h.writeRaw(line)
		} else {
			h.dups = append(h.dups, pendingDup{line: append([]byte(nil), line...), after: after})
		}
		return // do not count this write toward held-back copies
	default:
		h.records++
		h.writeRaw(line)
	}
	if fate == fateTruncated || len(h.dups) == 0 {
		return
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
}

func (h *hostFile) close() error {
	for _, d := range h.dups {
		h.writeRaw(d.line)
	}
	h.dups = nil
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
		return fmt.Errorf("simulate: writing %s: %w", h.rel, err)
	}
	return nil
}
