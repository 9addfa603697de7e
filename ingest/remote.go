package ingest

import (
	"context"
	"fmt"
	"io"

	"github.com/infertrace/infertrace/ingest/objstore"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// An input s3://BUCKET/KEYGLOB names objects (ingest/objstore): each object
// it matches is a source like a file, named by its URL, of the size
// listed, read as a stream. Its identity in a store is its URL, size and
// ETag as listed (FileStats.ETag), beside the fingerprint of its bytes
// computed while it is read, as a file's.

// IsObjectURL reports whether an input pattern names objects (s3://...)
// rather than local files.
func IsObjectURL(pattern string) bool { return objstore.IsURL(pattern) }

// remote is the object a source reads.
type remote struct {
	c   *objstore.Client
	obj objstore.Object
}

// objects lists the inputs' objects, one client for the run.
type objects struct {
	c *objstore.Client
}

// expand lists the objects of in (an s3:// glob) as sources, adding them
// to out unless seen; log says which subdirectories a directory input
// skipped.
func (o *objects) expand(ctx context.Context, in Input, log io.Writer, seen func(string) bool, add func(*source) error) error {
	if _, _, err := objstore.Parse(in.Pattern); err != nil {
		return fmt.Errorf("--%s: %w", in.Tier, err)
	}
	if o.c == nil {
		c, err := objstore.New(ctx)
		if err != nil {
			return fmt.Errorf("--%s %s: %w", in.Tier, in.Pattern, err)
		}
		o.c = c
	}
	objs, subdirs, err := o.c.List(ctx, in.Pattern)
	if err != nil {
		return fmt.Errorf("--%s %w", in.Tier, err)
	}
	if len(subdirs) > 0 && log != nil {
		fmt.Fprintf(log, "note: --%s %s: skipped %s: a directory input reads only the objects in it\n",
			in.Tier, textsafe.Escape(in.Pattern), countedNames(subdirs, "subdirectory", "subdirectories"))
	}
	if len(objs) == 0 {
		return fmt.Errorf("--%s %q matches no files", in.Tier, in.Pattern)
	}
	for _, obj := range objs {
		url := obj.URL()
		if seen(url) {
			continue
		}
		s := &source{stats: FileStats{Tier: in.Tier, Path: url, ETag: obj.ETag}, remote: &remote{c: o.c, obj: obj}}
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// open streams the object, its first n bytes when n >= 0.
func (r *remote) open(ctx context.Context, n int64) io.ReadCloser {
	return r.c.Open(ctx, r.obj, n)
}

// hashSource is the fingerprint of the first n bytes of s (all when n < 0).
func hashSource(ctx context.Context, s *source, n int64) (string, error) {
	if s.remote == nil {
		return hashFile(s.stats.Path, n)
	}
	r := s.remote.open(ctx, n)
	defer r.Close()
	h := newHash()
	got, err := io.Copy(h, r)
	if err != nil {
		return "", err
	}
	if n >= 0 && got < n {
		return "", fmt.Errorf("%s: shorter than %d bytes", s.stats.Path, n)
	}
	return fingerprint(h), nil
}

// sourceSize is the size of s before it is read: the object's as listed,
// the file's on disk; -1 when not known (standard input, a file that
// cannot be stat'ed or is not regular).
func sourceSize(s *source) int64 {
	switch {
	case s.stdin:
		return -1
	case s.remote != nil:
		return s.remote.obj.Size
	}
	return fileSize(s.stats.Path)
}
