package ingest

import (
	"fmt"
	"os"
	"path/filepath"

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

// sink writes one worker's rows of one tier to its own Parquet part files,
// DIR/<tier>/part-<name>.parquet, then part-<name>-1.parquet and so on after
// every partRows rows. Each is created on its first row as NAME.tmp and
// renamed when closed complete.
type sink[T Row] struct {
	base     string // DIR/<tier>/part-<name>
	path     string // of the part being written
	parts    int    // parts started
	f        *os.File
	w        partWriter[T]
	batch    []T
	n        int
	rows     int64
	partRows int64 // rows in the part being written
	// fill sets what the run's settings give to rows their format leaves
	// empty (Options.ServerModel); nil when there is nothing to set.
	fill func(*T)
}

func newSink[T Row](dir string, tier Tier, name string) *sink[T] {
	return &sink[T]{
		base:  filepath.Join(dir, string(tier), "part-"+name),
		batch: make([]T, batchRows),
	}
}

// slot returns the row to decode into next; commit keeps it.
func (s *sink[T]) slot() *T { return &s.batch[s.n] }

func (s *sink[T]) commit() error {
	if s.fill != nil {
		s.fill(&s.batch[s.n])
	}
	s.n++
	s.rows++
	if s.n == len(s.batch) {
		return s.flushBatch()
	}
	return nil
}

func (s *sink[T]) flushBatch() error {
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

func (s *sink[T]) close() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	return s.closePart()
}

// closePart completes the part being written, if any.
func (s *sink[T]) closePart() error {
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

// serverDefaults is the fill of server sinks: a model for formats that log
// none (vLLM V1 spans, TGI, SGLang, TensorRT-LLM).
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
