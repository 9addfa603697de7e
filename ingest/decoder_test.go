package ingest

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// NewDecoder sniffs as Run does, from the first lines rather than the
// first one: a banner and a comment before the records do not hide the
// format, and are then rejected as lines of it.
func TestNewDecoderSniffsPastBanner(t *testing.T) {
	in := "# exported by the load balancer\n" +
		"starting client v1.2\n" +
		`{"request_id":"r1","start":1796032800,"end":1796032801}` + "\n" +
		`{"request_id":"r2","start":1796032802,"end":1796032803}` + "\n"
	d, err := NewDecoder[ClientRow](Client, "", strings.NewReader(in), "in.log")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var rejected []int64
	for {
		var r ClientRow
		err := d.Next(&r)
		if err == io.EOF {
			break
		}
		var pe *ParseError
		if errors.As(err, &pe) {
			rejected = append(rejected, pe.Line)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.Format != "native" {
			t.Errorf("%s read as %q, want native", r.RequestID, r.Format)
		}
		ids = append(ids, r.RequestID)
	}
	if strings.Join(ids, ",") != "r1,r2" || len(rejected) != 2 || rejected[0] != 1 || rejected[1] != 2 {
		t.Errorf("rows %v, rejected lines %v; want r1,r2 and lines 1, 2", ids, rejected)
	}
	c, _ := Counts(d)
	if c.Lines != 4 || c.Decoded != 2 {
		t.Errorf("counts %+v, want 4 lines, 2 decoded", c)
	}
}

// A file no format recognises is refused with the error Run gives, naming
// the file in the flag to pass.
func TestNewDecoderUnknownFormat(t *testing.T) {
	_, err := NewDecoder[ClientRow](Client, "", strings.NewReader("hello\nworld\n"), "in.log")
	if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "--client FORMAT:in.log") {
		t.Errorf("got %v, want an unknown format error naming in.log", err)
	}
}
