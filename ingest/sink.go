package ingest

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	pqformat "github.com/parquet-go/parquet-go/format"
)

const (
	batchRows    = 1024    // rows decoded before one Write call
	rowGroupRows = 1 << 15 // bounded row groups keep writer memory flat
)

// partRows is how many rows a part file holds at most. A Parquet writer
// keeps every row group's metadata (statistics, page indexes) for the
// footer, so a sink starts a new part after this many rows (64 row groups),
// and memory stays flat however large the input.
var partRows int64 = 64 * rowGroupRows

// Parts are laid out as Hive-style partitions, so that other engines read
// the store as it is (see "Reading the store with another engine" in
// docs/store.md):
//
//	DIR/<tier>/date=YYYY-MM-DD/part-<run>-<worker>[-n].parquet
//
// date is the UTC day of the row's own start on its host's clock (client and
// gateway start_time, server arrival_time); a row without one (formats that
// log durations only: Triton, TensorRT-LLM, vllm-log annotations) is under
// date=__HIVE_DEFAULT_PARTITION__, Hive's name for a NULL partition value.
// The date is only in the path, never a column of the files.

// PartitionColumn is the name of the Hive partition key of the tier
// directories; DefaultPartition is the directory of rows without a start.
const (
	PartitionColumn  = "date"
	DefaultPartition = "__HIVE_DEFAULT_PARTITION__"
)

// noDay is the day of a row without a start.
const noDay = math.MinInt64

// PartitionDir is the partition directory name (date=YYYY-MM-DD) of a row
// starting at ns Unix nanoseconds UTC; of date=__HIVE_DEFAULT_PARTITION__
// when ns is 0 (no start).
func PartitionDir(ns int64) string { return partitionName(dayOf(ns)) }

func dayOf(ns int64) int64 {
	if ns == 0 {
		return noDay
	}
	const day = 24 * int64(time.Hour)
	d := ns / day
	if ns%day < 0 {
		d--
	}
	return d
}

func partitionName(day int64) string {
	if day == noDay {
		return PartitionColumn + "=" + DefaultPartition
	}
	return PartitionColumn + "=" + time.Unix(day*86400, 0).UTC().Format(time.DateOnly)
}

// maxOpenParts bounds the part files one sink writes at once: a file whose
// rows span more days than that closes the part of the day it used least
// recently, and goes on in a new part (-n) of that day if it comes back.
const maxOpenParts = 4

// staleRows is how many rows a sink takes without one for a day before that
// day's open part is closed: a log in time order leaves a day behind for
// good, and its writer's buffers (a row group of every column) would
// otherwise stay until maxOpenParts pushes it out, so that a file spanning
// days held a writer per day. A day that comes back later goes on in a new
// part (-n), as after makeRoom.
const staleRows = 2 * rowGroupRows

// sink writes one worker's rows of one tier to Parquet part files, one
// partSink per day (see PartitionDir). Rows of one day are mostly together in
// a log, so the row is decoded into the batch of the day seen last and moved
// only when its day differs.
type sink[T Row] struct {
	dir   string // DIR/<tier>
	name  string // part-<name>
	start func(*T) int64
	days  map[int64]*partSink[T]
	cur   *partSink[T]
	use   int64 // a clock for the least recently used day
	fill  func(*T)
}

func newSink[T Row](dir string, tier Tier, name string) *sink[T] {
	s := &sink[T]{dir: filepath.Join(dir, string(tier)), name: name, days: map[int64]*partSink[T]{}}
	var zero T
	switch any(&zero).(type) {
	case *ClientRow:
		s.start = func(r *T) int64 { return any(r).(*ClientRow).Start }
	case *GatewayRow:
		s.start = func(r *T) int64 { return any(r).(*GatewayRow).Start }
	case *ServerRow:
		s.start = func(r *T) int64 { return any(r).(*ServerRow).Arrival }
	}
	return s
}

// slot returns the row to decode into next; commit keeps it.
func (s *sink[T]) slot() *T {
	if s.cur == nil {
		s.cur = s.day(noDay)
	}
	return s.cur.slot()
}

func (s *sink[T]) commit() error {
	p := s.cur
	row := &p.batch[p.n]
	if s.fill != nil {
		s.fill(row)
	}
	if d := dayOf(s.start(row)); d != p.day {
		q := s.day(d)
		*q.slot() = *row
		p, s.cur = q, q
	}
	s.use++
	p.used = s.use
	if p.n == len(p.batch)-1 { // the batch fills
		if p.w == nil { // a writer opens
			if err := s.makeRoom(p); err != nil {
				return err
			}
		}
		if err := s.closeStale(p); err != nil {
			return err
		}
	}
	return p.commit()
}

// closeStale closes the open parts, other than p, of the days that took no
// row in the last staleRows rows.
func (s *sink[T]) closeStale(p *partSink[T]) error {
	for _, q := range s.days {
		if q == p || s.use-q.used <= staleRows || (q.w == nil && q.n == 0) {
			continue
		}
		if err := q.retire(); err != nil {
			return err
		}
	}
	return nil
}

// day returns the partSink of day d, creating it on first use.
func (s *sink[T]) day(d int64) *partSink[T] {
	p := s.days[d]
	if p == nil {
		p = &partSink[T]{day: d, base: filepath.Join(s.dir, partitionName(d), "part-"+s.name)}
		s.days[d] = p
	}
	if p.batch == nil {
		p.batch = make([]T, batchRows)
	}
	return p
}

// makeRoom closes the least recently used open part when maxOpenParts are
// open and p is about to open one.
func (s *sink[T]) makeRoom(p *partSink[T]) error {
	var open int
	var lru *partSink[T]
	for _, q := range s.days {
		if q.w != nil {
			open++
			if lru == nil || q.used < lru.used {
				lru = q
			}
		}
	}
	if open < maxOpenParts || lru == nil || lru == p {
		return nil
	}
	return lru.retire()
}

func (s *sink[T]) close() error {
	var errs []error
	for _, p := range s.days {
		errs = append(errs, p.close())
	}
	return errors.Join(errs...)
}

// partSink writes the rows of one day to its own Parquet part files,
// DIR/<tier>/date=D/part-<name>.parquet, then part-<name>-1.parquet and so
// on after every partRows rows. Each is created on its first row as
// NAME.tmp and renamed when closed complete.
type partSink[T Row] struct {
	day      int64
	used     int64
	base     string // DIR/<tier>/date=D/part-<name>
	path     string // of the part being written
	parts    int    // parts started
	f        *os.File
	w        partWriter[T]
	batch    []T
	n        int
	partRows int64 // rows in the part being written
}

func (s *partSink[T]) slot() *T { return &s.batch[s.n] }

func (s *partSink[T]) commit() error {
	s.n++
	if s.n == len(s.batch) {
		return s.flushBatch()
	}
	return nil
}

func (s *partSink[T]) flushBatch() error {
	if s.n == 0 {
		return nil
	}
	if s.w == nil {
		s.path = s.base + ".parquet"
		if s.parts > 0 {
			s.path = fmt.Sprintf("%s-%d.parquet", s.base, s.parts)
		}
		s.parts++
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(s.path + ".tmp")
		if err != nil {
			return err
		}
		s.f = f
		s.w = newPartWriter[T](f,
			parquet.Compression(fastSnappy{}),
			// Min/max stay in the column chunks and the column index, where
			// readers look for them; a copy in every page header costs a
			// second pass over each page.
			parquet.DataPageStatistics(false),
			parquet.MaxRowsPerRowGroup(rowGroupRows),
			parquet.WriteBufferSize(256<<10),
			// Every column of every sink buffers one page: 64 KiB pages
			// (not parquet-go's 256 KiB) take a fifth off peak memory for
			// half a percent more output.
			parquet.PageBufferSize(64<<10),
			parquet.CreatedBy("infertrace", "", ""))
	}
	err := s.w.write(s.batch[:s.n])
	s.partRows += int64(s.n)
	s.n = 0
	if err == nil && s.partRows >= partRows {
		err = s.closePart()
	}
	return err
}

func (s *partSink[T]) close() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	return s.closePart()
}

// retire closes the part and lets go of the batch until the day comes back.
func (s *partSink[T]) retire() error {
	if err := s.close(); err != nil {
		return err
	}
	s.batch = nil
	return nil
}

// closePart completes the part being written, if any.
func (s *partSink[T]) closePart() error {
	if s.w == nil {
		return nil
	}
	w, f := s.w, s.f
	s.w, s.f, s.partRows = nil, nil, 0
	if err := w.close(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", s.path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(s.path+".tmp", s.path)
}

// fastSnappy writes standard Snappy blocks with s2's fastest
// Snappy-compatible encoder. parquet-go's own Snappy codec uses the "better"
// mode, which costs an eighth of ingest's time for little gain on columns
// that are already dictionary-encoded.
type fastSnappy struct{}

func (fastSnappy) String() string                              { return "SNAPPY" }
func (fastSnappy) CompressionCodec() pqformat.CompressionCodec { return pqformat.Snappy }

func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	n := s2.MaxEncodedLen(len(src))
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	return s2.EncodeSnappy(dst[:n], src), nil
}

func (fastSnappy) Decode(dst, src []byte) ([]byte, error) { return s2.Decode(dst, src) }

// sinkFill is the fill of a sink of T rows: the error column keeps only the
// class of an error text unless opt.KeepErrorText, for every format that
// fills it; server rows get opt.ServerModel.
func sinkFill[T Row](opt Options) func(*T) {
	classes := errorClasses{}
	model := serverDefaults(opt.ServerModel)
	keep := opt.KeepErrorText
	return func(row *T) {
		switch r := any(row).(type) {
		case *ClientRow:
			if !keep {
				r.Error = classes.of(r.Error)
			}
		case *ServerRow:
			if !keep {
				r.Error = classes.of(r.Error)
			}
			if model != nil {
				model(r)
			}
		}
	}
}

// serverDefaults fills server rows with a model for formats that log none
// (vLLM V1 spans, TGI, SGLang, TensorRT-LLM).
func serverDefaults(model string) func(*ServerRow) {
	if model == "" {
		return nil
	}
	return func(r *ServerRow) {
		if r.Model == "" {
			r.Model = model
		}
	}
}
