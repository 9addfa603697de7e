package ingest

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"golang.org/x/tools/txtar"
)

// frameOf is one collector frame: a 4-byte big-endian length, then p.
func frameOf(p []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(p))), p...)
}

// framesFixture returns the binary files of the otel_frames case.
func framesFixture(t testing.TB) map[string][]byte {
	ar, err := txtar.ParseFile("../testdata/ingest/otel_frames.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ar.Files {
		if name, ok := strings.CutSuffix(f.Name, ".base64"); ok {
			b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(f.Data)), ""))
			if err != nil {
				t.Fatal(err)
			}
			files[name] = b
		} else {
			files[f.Name] = f.Data
		}
	}
	return files
}

func unframeAll(in []byte) ([]byte, error) {
	fr := newFrameReader(bytes.NewReader(in))
	defer fr.Close()
	return io.ReadAll(fr)
}

func TestIsOTLPFrameHead(t *testing.T) {
	files := framesFixture(t)
	proto := files["collector_file_proto.pb"]
	for _, c := range []struct {
		name string
		head []byte
		want bool
	}{
		{"real proto frame", proto, true},
		{"real zstd frame", files["collector_file.jsonl.zst"], true},
		{"zstd frame of proto", files["client.pb.zst"], true},
		{"JSON line", files["collector_file.jsonl"], false},
		{"whole-file zstd", files["native.pb.zst"], false}, // openInput decompresses it first
		{"gzip magic", []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0}, false},
		{"over 16 MiB", []byte{0x01, 0x00, 0x00, 0x01, 0x0a, 0x00}, false},
		{"zero length", []byte{0, 0, 0, 0, 0x0a, 0x00}, false},
		{"field longer than the frame", []byte{0, 0, 0, 3, 0x0a, 0x05, 0, 0}, false},
		{"field that fits exactly", []byte{0, 0, 0, 3, 0x0a, 0x01, 0}, true},
		{"other first field", []byte{0, 0, 0, 3, 0x12, 0x01, 0}, false},
		{"cut varint", []byte{0, 0, 0, 9, 0x0a, 0x81}, false},
		{"too short", proto[:5], false},
		{"text", []byte("2025-01-01 INFO started\n"), false},
		{"UTF-16BE text", []byte("\x00{\x00\"\x00r\x00e"), false},
	} {
		if got := isOTLPFrameHead(c.head[:min(len(c.head), frameHeadLen)]); got != c.want {
			t.Errorf("%s: isOTLPFrameHead(% x) = %v, want %v", c.name, c.head[:min(len(c.head), 8)], got, c.want)
		}
	}
}

// TestFrameReader checks the lines frames become: a protobuf export is
// pdata's JSON of it, a JSON export is kept as written (line breaks made
// spaces), an empty or undecodable frame is a blank line; the undecodable
// one is listed, for readFile to reject, and the file goes on.
func TestFrameReader(t *testing.T) {
	files := framesFixture(t)
	jsonLine := bytes.TrimSpace(files["collector_file.jsonl"])
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(jsonLine)
	if err != nil {
		t.Fatal(err)
	}
	pdataJSON, _ := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	enc, _ := zstd.NewWriter(nil)
	pretty := []byte("{\n  \"resourceSpans\": []\r\n}")
	var in []byte
	in = append(in, files["collector_file_proto.pb"]...)
	in = append(in, files["collector_file.jsonl.zst"]...)
	in = append(in, frameOf(nil)...)
	in = append(in, frameOf(pretty)...)
	in = append(in, frameOf(enc.EncodeAll(pretty, nil))...)
	in = append(in, frameOf([]byte{0x0a, 0x02, 0xff})...) // a field longer than the frame
	fr := newFrameReader(bytes.NewReader(in))
	got, err := io.ReadAll(fr)
	fr.Close()
	if err != nil {
		t.Fatalf("error %v: a frame that does not decode is a reject, not the file's end", err)
	}
	if len(fr.bad) != 1 || fr.bad[0].line != 6 || !errors.Is(fr.bad[0].err, errFrame) || !strings.Contains(fr.bad[0].err.Error(), "frame 6 at byte ") {
		t.Fatalf("bad frames %v, want frame 6", fr.bad)
	}
	want := strings.Join([]string{string(pdataJSON), string(jsonLine), "", `{   "resourceSpans": []  }`, `{   "resourceSpans": []  }`, ""}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// TestFrameReaderErrors: each way a framed file can end early names the
// frame and its byte offset, and the frames before it are kept.
func TestFrameReaderErrors(t *testing.T) {
	good := framesFixture(t)["collector_file_proto.pb"] // 785 bytes
	huge := binary.BigEndian.AppendUint32(nil, MaxLineBytes+1)
	for _, c := range []struct {
		name, tail, want string
	}{
		{"cut length", "\x00\x00", "bad collector frame 2 at byte 785: the file ends inside the length of a frame (2 of 4 bytes) (truncated file?)"},
		{"cut payload", "\x00\x00\x00\x10\x0a\x01", "bad collector frame 2 at byte 785: the file ends 2 bytes into a frame of 16 (truncated file?)"},
		{"huge length", string(huge) + "\x0a\x00", "bad collector frame 2 at byte 785: length 16777217 is over the 16 MiB limit (not a collector frame?)"},
		{"max uint32", "\xff\xff\xff\xff", "bad collector frame 2 at byte 785: length 4294967295 is over the 16 MiB limit (not a collector frame?)"},
	} {
		got, err := unframeAll(append(append([]byte{}, good...), c.tail...))
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: error %v\nwant %s", c.name, err, c.want)
		}
		if n := bytes.Count(got, []byte{'\n'}); n != 1 || !bytes.HasPrefix(got, []byte(`{"resourceSpans":`)) {
			t.Errorf("%s: want the first frame's line before the error, got %q", c.name, got)
		}
	}
}

// TestFrameReaderBounded: a length is not trusted until its bytes arrive
// (a 16 MiB frame announced in a few bytes allocates little), and a zstd
// frame that inflates past MaxLineBytes is not decoded.
func TestFrameReaderBounded(t *testing.T) {
	in := append(binary.BigEndian.AppendUint32(nil, MaxLineBytes), 0x0a, 0x01, 0x00)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := unframeAll(in)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "the file ends 3 bytes into a frame of 16777216") {
		t.Fatalf("error %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading a 7-byte file allocated %d bytes", n)
	}

	enc, _ := zstd.NewWriter(nil)
	bomb := enc.EncodeAll(bytes.Repeat([]byte{' '}, MaxLineBytes+1), nil)
	fr := newFrameReader(bytes.NewReader(frameOf(bomb)))
	got, err := io.ReadAll(fr)
	fr.Close()
	if err != nil || len(fr.bad) != 1 || !strings.Contains(fr.bad[0].err.Error(), "frame 1 at byte 0: zstd:") || string(got) != "\n" {
		t.Errorf("a zstd frame of 16 MiB + 1 (%d bytes compressed): got %q, %v, %v", len(bomb), got, err, fr.bad)
	}
}

// TestOpenInputFrames: openInput unframes a framed file, plain or inside a
// whole-file zstd or gzip stream, and leaves JSON lines, compressed or not,
// as they are.
func TestOpenInputFrames(t *testing.T) {
	files := framesFixture(t)
	dir := t.TempDir()
	jsonLine := string(files["collector_file.jsonl"])
	for _, c := range []struct {
		name string
		data []byte
		want string // first line
	}{
		{"framed.pb", files["collector_file_proto.pb"], `{"resourceSpans":[{"resource":`},
		{"framed.zst", files["collector_file.jsonl.zst"], jsonLine},
		{"native.zst", files["native.pb.zst"], `{"resourceSpans":[{"resource":`},
		{"framed.pb.gz", gzipBytes(t, files["collector_file_proto.pb"]), `{"resourceSpans":[{"resource":`},
		{"plain.jsonl.zst", zstdBytes(t, []byte(jsonLine)), jsonLine},
		{"plain.jsonl", []byte(jsonLine), jsonLine},
	} {
		path := dir + "/" + c.name
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		rc, _, err := openInput(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		first, err := bufio.NewReader(rc).ReadString('\n')
		rc.Close()
		if err != nil || !strings.HasPrefix(first, strings.TrimSuffix(c.want, "\n")) {
			t.Errorf("%s: first line %.80q, %v; want %.80q", c.name, first, err, c.want)
		}
	}
}

// FuzzFrameReader: any input unframes without panicking, into one line per
// frame read, and an error that names a frame whenever it is not a clean
// end.
func FuzzFrameReader(f *testing.F) {
	files := framesFixture(f)
	for _, name := range []string{"collector_file_proto.pb", "collector_file.jsonl.zst", "broken.pb", "gw.pb", "client.pb.zst"} {
		f.Add(files[name])
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		fr := newFrameReader(bytes.NewReader(in))
		out, err := io.ReadAll(fr)
		fr.Close()
		if err != nil && !errors.Is(err, errFrame) {
			t.Fatalf("error %v does not name a frame", err)
		}
		if n := int64(bytes.Count(out, []byte{'\n'})); n != fr.frames {
			t.Fatalf("%d lines from %d frames", n, fr.frames)
		}
		if fr.off > int64(len(in)) {
			t.Fatalf("offset %d past the input's %d bytes", fr.off, len(in))
		}
		if err == nil && fr.off != int64(len(in)) {
			t.Fatalf("clean end at byte %d of %d", fr.off, len(in))
		}
		for i, b := range fr.bad { // each a blank line, in order
			if b.line < 1 || b.line > fr.frames || i > 0 && b.line <= fr.bad[i-1].line || !errors.Is(b.err, errFrame) {
				t.Fatalf("bad frame %d of %d: %v", b.line, fr.frames, b.err)
			}
		}
	})
}
