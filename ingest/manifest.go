package ingest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/infertrace/infertrace/ingest/record"
)

// Manifest accounts for every input line: for each file,
// Lines = Decoded + Rejected + Duplicates + Blank. In the native formats a
// decoded line is one row (Rows = Decoded); formats that pack several
// records in one line (OTLP) or none (a log line of another kind) differ.
type Manifest struct {
	Version int `json:"version"`
	// RunID names this ingest (random, unique): what analyze derives from
	// it records the manifest it read, so a report never mixes two ingests.
	// With --append it is the last batch's, so each batch changes it.
	RunID string `json:"run_id"`
	// Batches are the ingests the files came from, oldest first (see
	// store.go); an ingest without --append starts the list anew.
	Batches []Batch     `json:"batches,omitempty"`
	Files   []FileStats `json:"files"`
	// RejectsBytes is the size of rejects.jsonl this manifest accounts for:
	// an append keeps that much of it and adds its own.
	RejectsBytes int64 `json:"rejects_bytes"`
	// Added is what the Run that returned the manifest did: the batch it
	// added, or for an append that found nothing new, a batch of no files
	// naming what it skipped (and the manifest is the store's, unchanged).
	// Not written.
	Added *Batch `json:"-"`
}

func newRunID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// FileStats is what ingest did with one input file.
type FileStats struct {
	Tier       Tier   `json:"tier"`
	Format     string `json:"format"`
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"` // size on disk (compressed, if it is)
	Lines      int64  `json:"lines"`
	Decoded    int64  `json:"decoded"`
	Rows       int64  `json:"rows"`
	Rejected   int64  `json:"rejected"`
	Duplicates int64  `json:"duplicates"`
	Blank      int64  `json:"blank"`
	// Prefix names the collector prefix stripped from the file's lines
	// (prefix.go): docker-compose, timestamp, kubectl, cri, syslog, several
	// joined by "+", or regex (Options.Prefix); empty when none was.
	Prefix string `json:"prefix,omitempty"`
	// CollectorTime states the columns filled from the time of the
	// prefix (docs/collectors.md), after the prefix that gave it:
	// "timestamp: arrival_time, end_time"; empty when the prefix has no
	// time or the format uses none.
	CollectorTime string `json:"collector_time,omitempty"`
	// Framing is "json-records" when a file of a line format was a JSON
	// document (pretty-printed records, an array of records) read record
	// by record: its lines then count records, and a record's line is the
	// one it starts on. Empty for one record per line.
	Framing string `json:"framing,omitempty"`
	// TimeZone states the zone the file's times logged without one were
	// read in: "Europe/Paris (--timezone)", "UTC (jsonl default)"; empty
	// when none applied, and such a time was rejected (zone.go).
	TimeZone string `json:"time_zone,omitempty"`
	// Batch is the run ID of the ingest that read the file; Fingerprint
	// the XXH3-128 of its bytes as stored ("xxh3-128:<hex>"; with Bytes, the
	// file's identity in the store), empty when it could not be read whole.
	Batch       string `json:"batch,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	// ETag is an object's entity tag as listed (an s3:// input, quotes
	// included): with Path and Bytes, it tells an object already in the
	// store without reading it again. Empty for a file.
	ETag string `json:"etag,omitempty"`
	// Error is set when the file could not be read to its end (it could not
	// be opened, its format is unknown, its compression is corrupt); the
	// lines before the error are still counted and kept.
	Error string `json:"error,omitempty"`
	// Incomplete says that reading stopped at Error before the file's end
	// (it could not be opened, its compression is cut short or corrupt):
	// its counts are of what came before, and what follows is in none. A
	// file with an Error but read to its end (its format could not be
	// told, it made no rows) has its lines counted as rejected.
	Incomplete bool `json:"incomplete,omitempty"`
}

// Totals sums the files of the manifest.
func (m *Manifest) Totals() FileStats {
	var t FileStats
	for _, f := range m.Files {
		t.Bytes += f.Bytes
		t.Lines += f.Lines
		t.Decoded += f.Decoded
		t.Rows += f.Rows
		t.Rejected += f.Rejected
		t.Duplicates += f.Duplicates
		t.Blank += f.Blank
	}
	return t
}

// Failed lists the files that could not be read to their end.
func (m *Manifest) Failed() []FileStats {
	var out []FileStats
	for _, f := range m.Files {
		if f.Error != "" {
			out = append(out, f)
		}
	}
	return out
}

func (m *Manifest) write(dir string) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "manifest.json"), append(b, '\n'))
}

// ReadManifest reads DIR/manifest.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// source is one input file while it is being read.
type source struct {
	idx    int // position in the input list, names its part file
	stats  FileStats
	format *record.Format
	named  bool // format was named (FORMAT:GLOB, --map), not sniffed
	// jsonRecords: a line format read from a JSON document, record by
	// record (record.JSONRecords).
	jsonRecords bool
	stdin       bool         // the input "-": standard input, named StdinName
	remote      *remote      // the object of an s3:// input, named by its URL
	zone        *record.Zone // of its times logged without one (setZone); nil: none
	rows        atomic.Int64
	untimed     atomic.Int64 // rows without the times of their tier (record.HasTime)
	// sniffLines and sniffDoc, of a document-format file, are what its
	// format is sniffed from (peekSniffLines), copied.
	sniffLines [][]byte
	sniffDoc   []byte
	nonBlank   bool // a document-format file has a line that is neither blank nor a comment
	decoded    atomic.Int64
	rejected   atomic.Int64
	// prefixCause and formatCause say why the file may make no row, found
	// from its first lines (noRowsCauses); "" when nothing is told.
	prefixCause, formatCause string
}
