package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// maxResumes bounds the reconnections of one stream that make no progress
// in between: a connection cut in the middle of a long object is taken up
// again from the byte it stopped at.
const maxResumes = 3

// Open streams the object's bytes, the first n of them when n >= 0 (all
// when n < 0). The object is read as listed: a version of it with
// another ETag (replaced since) fails the read with ErrChanged, where the
// server checks If-Match. A connection that breaks is taken up again
// where it stopped (a ranged GET); ctx ending stops the read. Errors name
// the object's URL.
func (c *Client) Open(ctx context.Context, o Object, n int64) io.ReadCloser {
	end := o.Size
	if n >= 0 && n < end {
		end = n
	}
	return &reader{c: c, ctx: ctx, o: o, end: end}
}

type reader struct {
	c       *Client
	ctx     context.Context
	o       Object
	off     int64 // bytes read
	end     int64 // bytes to read
	body    io.ReadCloser
	resumes int // failures since the last byte read
	err     error
}

func (r *reader) Read(p []byte) (int, error) {
	for {
		if r.err != nil {
			return 0, r.err
		}
		if r.ctx.Err() != nil {
			r.fail(fmt.Errorf("%s: %w", r.o.URL(), context.Cause(r.ctx)))
			continue
		}
		if r.off >= r.end {
			return 0, io.EOF
		}
		if r.body == nil {
			if err := r.get(); err != nil {
				r.fail(err)
				continue
			}
		}
		if int64(len(p)) > r.end-r.off {
			p = p[:r.end-r.off]
		}
		n, err := r.body.Read(p)
		r.off += int64(n)
		if n > 0 {
			r.resumes = 0
		}
		switch {
		case err == nil:
			return n, nil
		case err == io.EOF && r.off >= r.end:
			return n, io.EOF
		}
		// Cut short (EOF before the size listed) or broken: resume.
		r.body.Close()
		r.body = nil
		if r.ctx.Err() == nil {
			if r.resumes++; r.resumes > maxResumes {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				r.fail(fmt.Errorf("%s: after %d of %d bytes: %w", r.o.URL(), r.off, r.o.Size, describe(r.ctx, "reading", err)))
			}
		}
		if n > 0 {
			return n, nil
		}
	}
}

// get opens the body from r.off on.
func (r *reader) get() error {
	in := &s3.GetObjectInput{Bucket: &r.o.Bucket, Key: &r.o.Key}
	if r.o.ETag != "" {
		in.IfMatch = aws.String(r.o.ETag)
	}
	if r.off > 0 || r.end < r.o.Size {
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", r.off, r.end-1))
	}
	out, err := r.c.s3.GetObject(r.ctx, in)
	if err != nil {
		return describe(r.ctx, r.o.URL(), err)
	}
	r.body = out.Body
	return nil
}

func (r *reader) fail(err error) {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	r.err = err
}

// Close ends the stream.
func (r *reader) Close() error {
	if r.body != nil {
		r.body.Close()
		r.body = nil
	}
	if r.err == nil || errors.Is(r.err, io.EOF) {
		r.err = errors.New("read after close")
	}
	return nil
}
