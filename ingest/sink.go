package ingest

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
)

const (
	batchRows    = 1024    // rows decoded before one Write call
	rowGroupRows = 1 << 17 // bounded row groups keep writer memory flat
)

// sink writes one worker's rows of one tier to its own Parquet part file,
// DIR/<tier>/part-<worker>.parquet, created on the first row.
type sink[T Row] struct {
	path  string
	f     *os.File
	w     *parquet.GenericWriter[T]
	batch []T
	n     int
	rows  int64
}

func newSink[T Row](dir string, tier Tier, worker int) *sink[T] {
	return &sink[T]{
		path:  filepath.Join(dir, string(tier), fmt.Sprintf("part-%03d.parquet", worker)),
		batch: make([]T, batchRows),
	}
}

// slot returns the row to decode into next; commit keeps it.
func (s *sink[T]) slot() *T { return &s.batch[s.n] }

func (s *sink[T]) commit() error {
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
		if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
			return err
		}
		f, err := os.Create(s.path)
		if err != nil {
			return err
		}
		s.f = f
		s.w = parquet.NewGenericWriter[T](f,
			parquet.Compression(&parquet.Snappy),
			parquet.MaxRowsPerRowGroup(rowGroupRows),
			parquet.CreatedBy("infertrace", "", ""))
	}
	_, err := s.w.Write(s.batch[:s.n])
	s.n = 0
	return err
}

func (s *sink[T]) close() error {
	if err := s.flushBatch(); err != nil {
		return err
	}
	if s.w == nil {
		return nil
	}
	if err := s.w.Close(); err != nil {
		s.f.Close()
		return fmt.Errorf("%s: %w", s.path, err)
	}
	return s.f.Close()
}
