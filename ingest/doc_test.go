package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest/internal/rowtext"
	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// testDoc is a document format for the tests of the document path: a JSON
// array of {"id","t0","t1"} objects, possibly without its closing bracket
// (a file still being written).
func init() {
	record.RegisterDoc(Client, "testdoc", func(first []byte) bool { return bytes.HasPrefix(first, []byte(`[{"id"`)) }, parseTestDoc)
}

func parseTestDoc(r io.Reader, file string, out *DocOut[ClientRow]) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%w: want a JSON array", ErrSyntax)
	}
	for dec.More() {
		off := int(dec.InputOffset())
		for off < len(data) && bytes.IndexByte([]byte(", \t\r\n"), data[off]) >= 0 {
			off++
		}
		line := int64(bytes.Count(data[:off], []byte{'\n'})) + 1
		var rec struct {
			ID     string
			T0, T1 json.Number
		}
		if err := dec.Decode(&rec); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return nil // a file cut while being written: what came before counts
			}
			return out.Done(line, nil, fmt.Errorf("%w: %v", ErrSyntax, err))
		}
		row := out.Next()
		row.RequestID = rec.ID
		row.Format = "testdoc"
		var err1, err2 error
		row.Start, err1 = scan.ParseEpochSeconds([]byte(rec.T0))
		row.End, err2 = scan.ParseEpochSeconds([]byte(rec.T1))
		if err := errors.Join(err1, err2); err != nil {
			if err := out.Done(line, []byte(rec.ID), record.FieldErrorf("t0/t1", ErrBadTime, "%v", err)); err != nil {
				return err
			}
			continue
		}
		if err := out.Done(line, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

func TestDocFormat(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "doc.json")
	os.WriteFile(path, []byte("[{\"id\":\"a\",\"t0\":1796032800,\"t1\":1796032801},\n{\"id\":\"b\",\"t0\":17960328000000,\"t1\":1796032801},\n{\"id\":\"c\",\"t0\":1796032800.5,\"t1\":1796032802}"), 0o644)
	out := filepath.Join(dir, "out")
	m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: path}}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	f := m.Files[0]
	if f.Format != "testdoc" || f.Lines != 3 || f.Decoded != 2 || f.Rows != 2 || f.Rejected != 1 || f.Error != "" {
		t.Fatalf("manifest: %+v", f)
	}
	got := rowtext.Table[ClientRow](t, out, Client, dir)
	want := "doc.json:1 request_id=a start_time=2026-11-30T10:00:00Z end_time=2026-11-30T10:00:01Z format=testdoc\n" +
		"doc.json:3 request_id=c start_time=2026-11-30T10:00:00.5Z end_time=2026-11-30T10:00:02Z format=testdoc\n"
	if got != want {
		t.Errorf("rows:\n%s\nwant:\n%s", got, want)
	}
	if rj := dumpRejects(t, out, dir); !strings.Contains(rj, `"file":"doc.json","line":2,"kind":"bad_time"`) {
		t.Errorf("rejects: %s", rj)
	}
}
