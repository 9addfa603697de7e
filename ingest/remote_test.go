package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/infertrace/infertrace/ingest/internal/rowtext"
)

const (
	s3KeyID  = "AKIAINGESTTEST000001"
	s3Secret = "ingest-s3-secret-9f8e7d6c5b4a"
)

// s3Server is an in-process S3 server (gofakes3, in memory) the AWS
// environment points at for one test.
type s3Server struct {
	backend *s3mem.Backend
	gets    atomic.Int64 // GetObject requests served
	// block, when set, holds the GET of that key: it sends blockPart
	// bytes, closes started, and waits for the client to go.
	block     string
	blockPart []byte
	started   chan struct{}
}

// newS3 serves objects ("bucket/key" -> bytes) and sets the AWS
// environment to reach it with s3KeyID's credentials, no shared files and
// no instance metadata. It refuses requests signed with another key ID,
// as S3 does. Not parallel: it sets the environment.
func newS3(t *testing.T, objects map[string][]byte) *s3Server {
	t.Helper()
	s := &s3Server{backend: s3mem.New(), started: make(chan struct{})}
	for name, body := range objects {
		s.put(t, name, body)
	}
	fake := gofakes3.New(s.backend).Server()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+s3KeyID+"/") {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		if r.Method == http.MethodGet && r.URL.Query().Get("list-type") == "" && !strings.HasSuffix(r.URL.Path, "/") {
			s.gets.Add(1)
			if s.block != "" && r.URL.Path == "/"+s.block {
				w.Header().Set("Content-Length", "1000000")
				w.Write(s.blockPart)
				w.(http.Flusher).Flush()
				close(s.started)
				<-r.Context().Done()
				return
			}
		}
		fake.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.Start()
	t.Cleanup(srv.Close)
	for k, v := range map[string]string{
		"AWS_ENDPOINT_URL_S3":         srv.URL,
		"AWS_ENDPOINT_URL":            "",
		"AWS_ACCESS_KEY_ID":           s3KeyID,
		"AWS_SECRET_ACCESS_KEY":       s3Secret,
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_CONFIG_FILE":             filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	return s
}

func (s *s3Server) put(t *testing.T, name string, body []byte) {
	t.Helper()
	bucket, key, _ := strings.Cut(name, "/")
	if ok, _ := s.backend.BucketExists(bucket); !ok {
		if err := s.backend.CreateBucket(bucket); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.backend.PutObject(bucket, key, nil, bytes.NewReader(body), int64(len(body)), nil); err != nil {
		t.Fatal(err)
	}
}

// s3Logs are the inputs of the S3 tests, by key: plain, gzip and zstd
// files, a document format, a file with a rejected line, and objects the
// globs below do not match.
func s3Logs(t *testing.T) map[string][]byte {
	t.Helper()
	read := func(p string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata/samples", p))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	return map[string][]byte{
		"logs/client/aiperf.jsonl":     read("client/aiperf_profile_export_docs.jsonl"),
		"logs/client/native.jsonl":     []byte(`{"request_id":"r1","start":1796032800,"end":1796032801,"model":"m"}` + "\n{\"request_id\":\n" + `{"request_id":"r2","start":1796032802,"end":1796032803,"model":"m"}` + "\n"),
		"logs/client/notes.txt":        []byte("not a log\n"),
		"logs/client/old/x.jsonl":      []byte(`{"request_id":"r9","start":1796032800,"end":1796032801,"model":"m"}` + "\n"),
		"logs/gateway/nginx.jsonl.gz":  gzipBytes(t, read("gateway/nginx_escape_json.jsonl")),
		"logs/server/tgi.jsonl":        read("server/tgi_json_output.jsonl"),
		"logs/server/vllm.jsonl.zst":   read("server/vllm_otel_llm_request_span.collector_file.jsonl.zst"),
		"logs/server/trtllm_perf.json": read("server/trtllm_perf_metrics.json"),
	}
}

// s3Inputs are the inputs of s3Logs, under root (a directory, or
// s3://bucket).
func s3Inputs(root string) []Input {
	return []Input{
		{Tier: Client, Pattern: root + "/logs/client/*.jsonl"},
		{Tier: Gateway, Pattern: root + "/logs/gateway/*.gz"},
		{Tier: Server, Pattern: root + "/logs/server/*"},
	}
}

// TestS3SameAsLocal: objects read through s3:// globs give the rows,
// rejects and manifest counts (bytes and fingerprints included) of the
// same files read from disk; the manifest names each object by its URL
// with its ETag, and no credential reaches any output.
func TestS3SameAsLocal(t *testing.T) {
	logs := s3Logs(t)
	objects := map[string][]byte{}
	dir := t.TempDir()
	for key, body := range logs {
		objects["bucket/"+key] = body
		path := filepath.Join(dir, filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := newS3(t, objects)

	local, err := Run(context.Background(), Options{Inputs: s3Inputs(dir), Out: filepath.Join(dir, "out-local"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	out := filepath.Join(dir, "out-s3")
	remote, err := Run(context.Background(), Options{Inputs: s3Inputs("s3://bucket"), Out: out, Workers: 2, Log: &logged})
	if err != nil {
		t.Fatal(err)
	}
	checkAccounting(t, remote)
	if len(remote.Files) != 6 || len(local.Files) != 6 {
		t.Fatalf("files: %d from S3, %d local, want 6", len(remote.Files), len(local.Files))
	}
	for i, r := range remote.Files {
		l := local.Files[i]
		want := strings.Replace(l.Path, dir, "s3://bucket", 1)
		if r.Path != want || r.ETag == "" || l.ETag != "" {
			t.Errorf("file %d: path %s etag %q (local %s, etag %q), want %s with an ETag", i, r.Path, r.ETag, l.Path, l.ETag, want)
		}
		r.Path, r.ETag, r.Batch = l.Path, "", l.Batch
		r.Error = strings.ReplaceAll(r.Error, "s3://bucket", dir)
		if r != l {
			t.Errorf("file %d differs:\n  s3    %+v\n  local %+v", i, r, l)
		}
		if r.Fingerprint == "" || r.Rows == 0 {
			t.Errorf("%s: no fingerprint or no rows: %+v", r.Path, r)
		}
	}
	if remote.Totals().Rejected == 0 {
		t.Error("no line rejected: the rejects are not compared")
	}
	for _, c := range []struct{ name, s3, local string }{
		{"client", rowtext.Table[ClientRow](t, out, Client, "s3://bucket"), rowtext.Table[ClientRow](t, filepath.Join(dir, "out-local"), Client, dir)},
		{"gateway", rowtext.Table[GatewayRow](t, out, Gateway, "s3://bucket"), rowtext.Table[GatewayRow](t, filepath.Join(dir, "out-local"), Gateway, dir)},
		{"server", rowtext.Table[ServerRow](t, out, Server, "s3://bucket"), rowtext.Table[ServerRow](t, filepath.Join(dir, "out-local"), Server, dir)},
		{"rejects", dumpRejects(t, out, "s3://bucket"), dumpRejects(t, filepath.Join(dir, "out-local"), dir)},
	} {
		if c.s3 != c.local || c.s3 == "" {
			t.Errorf("%s differ:\n--- s3\n%s--- local\n%s", c.name, c.s3, c.local)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(out, "rejects.jsonl")); !bytes.Contains(b, []byte(`"file":"s3://bucket/logs/client/native.jsonl"`)) {
		t.Errorf("the reject does not name the object:\n%s", b)
	}
	// No credential in the manifest, rejects, part files or log.
	outputs := map[string][]byte{"log": logged.Bytes()}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			outputs[p], _ = os.ReadFile(p)
		}
		return nil
	})
	for name, b := range outputs {
		if bytes.Contains(b, []byte(s3Secret)) || bytes.Contains(b, []byte(s3KeyID)) {
			t.Errorf("%s holds a credential", name)
		}
	}
	if s.gets.Load() != 6 {
		t.Errorf("%d GETs, want one per object (6)", s.gets.Load())
	}
}

// TestS3Append: an object listed with the URL, size and ETag of one in the
// store is skipped without being read; one whose content changed under
// the same name is read as new; the same content under another name is
// skipped as a twin.
func TestS3Append(t *testing.T) {
	logs := s3Logs(t)
	s := newS3(t, map[string][]byte{
		"bucket/a/tgi.jsonl": logs["logs/server/tgi.jsonl"],
		"bucket/a/bad.jsonl": logs["logs/client/native.jsonl"],
	})
	out := filepath.Join(t.TempDir(), "store")
	opt := Options{Inputs: []Input{{Tier: Server, Pattern: "s3://bucket/a/tgi.jsonl"}, {Tier: Client, Pattern: "s3://bucket/a/*.jsonl"}}, Out: out, Append: true}
	first, err := Run(context.Background(), opt)
	if err != nil || len(first.Files) != 3 {
		t.Fatalf("first batch: %v %+v", err, first)
	}
	gets := s.gets.Load()
	var logged bytes.Buffer
	opt.Log = &logged
	again, err := Run(context.Background(), opt)
	if err != nil || len(again.Batches) != 1 || len(again.Added.Skipped) != 3 || s.gets.Load() != gets {
		t.Fatalf("the same objects again: %v, %d batches, skipped %+v, %d GETs (want none)", err, len(again.Batches), again.Added, s.gets.Load()-gets)
	}
	if !strings.Contains(logged.String(), "note: --server s3://bucket/a/tgi.jsonl is in the store already (unchanged): skipped") {
		t.Errorf("log: %s", logged.String())
	}
	// New content under the old name, and a copy of it under another.
	changed := append(bytes.Clone(logs["logs/client/native.jsonl"]), `{"request_id":"r3","start":1796032804,"end":1796032805,"model":"m"}`+"\n"...)
	s.put(t, "bucket/a/bad.jsonl", changed)
	s.put(t, "bucket/b/copy.jsonl", changed)
	opt.Inputs = []Input{{Tier: Client, Pattern: "s3://bucket/a/bad.jsonl"}, {Tier: Client, Pattern: "s3://bucket/b/*"}}
	if _, err := Run(context.Background(), opt); !errors.Is(err, ErrGrew) || !strings.Contains(err.Error(), "s3://bucket/a/bad.jsonl") {
		t.Errorf("an object that grew: %v, want ErrGrew naming it", err)
	}
	changed = append([]byte("\n"), changed...) // no longer begins with what was ingested
	s.put(t, "bucket/a/bad.jsonl", changed)
	s.put(t, "bucket/b/copy.jsonl", changed)
	third, err := Run(context.Background(), opt)
	if err != nil || len(third.Batches) != 2 || third.Added.Files != 1 || len(third.Added.Skipped) != 1 ||
		third.Added.Skipped[0] != (SkippedFile{Tier: Client, Path: "s3://bucket/b/copy.jsonl", SameAs: "s3://bucket/a/bad.jsonl"}) {
		t.Fatalf("changed object and its copy: %v %+v", err, third)
	}
	if f := third.Files[len(third.Files)-1]; f.Path != "s3://bucket/a/bad.jsonl" || f.Rows != 3 || f.Rejected != 1 {
		t.Errorf("the changed object: %+v", f)
	}
}

// TestS3Errors: a glob that matches nothing fails as a local one does; a
// missing bucket, a refused credential and a URL holding credentials fail
// naming the URL (never the secret), before the output directory is
// touched; a directory input reads the objects directly in it.
func TestS3Errors(t *testing.T) {
	newS3(t, map[string][]byte{"bucket/logs/client/a.jsonl": s3Logs(t)["logs/client/native.jsonl"], "bucket/logs/client/old/b.jsonl": []byte("{}\n")})
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	run := func(pattern string) (*Manifest, string, error) {
		var logged bytes.Buffer
		m, err := Run(context.Background(), Options{Inputs: []Input{{Tier: Client, Pattern: pattern}}, Out: out, Log: &logged})
		return m, logged.String(), err
	}
	_, _, localErr := run(filepath.Join(dir, "logs/*.csv"))
	for _, c := range []struct{ pattern, want string }{
		{"s3://bucket/logs/*.csv", `--client "s3://bucket/logs/*.csv" matches no files`},
		{"s3://bucket/nothing", `--client "s3://bucket/nothing" matches no files`},
		{"s3://nobucket/logs/*.jsonl", "--client s3://nobucket/logs/*.jsonl: no such bucket (NoSuchBucket"},
		{"s3://" + s3KeyID + ":" + s3Secret + "@bucket/logs/*", "--client: an s3:// URL holds no credentials"},
		{"s3://bucket/logs/[", "--client: s3://bucket/logs/[: syntax error in pattern"},
	} {
		_, _, err := run(c.pattern)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), s3Secret) {
			t.Errorf("%s: got %v, want %q", c.pattern, err, c.want)
		}
	}
	if want := strings.Replace(localErr.Error(), filepath.Join(dir, "logs/*.csv"), "s3://bucket/logs/*.csv", 1); want != `--client "s3://bucket/logs/*.csv" matches no files` {
		t.Errorf("a local glob that matches nothing: %v", localErr)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAWRONGWRONGWRONG1")
	if _, _, err := run("s3://bucket/logs/*.jsonl"); !strings.HasPrefix(fmtErr(err), "--client s3://bucket/logs/*.jsonl: access denied (InvalidAccessKeyId") ||
		strings.Contains(fmtErr(err), s3Secret) || strings.Contains(fmtErr(err), "AKIAWRONG") {
		t.Errorf("a wrong key: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed listing made --out: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", s3KeyID)
	m, logged, err := run("s3://bucket/logs/client")
	if err != nil || len(m.Files) != 1 || m.Files[0].Path != "s3://bucket/logs/client/a.jsonl" ||
		!strings.Contains(logged, "note: --client s3://bucket/logs/client: skipped 1 subdirectory (old)") {
		t.Errorf("a directory: %v %+v %s", err, m, logged)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// TestS3Cancel: ctx ending (Ctrl-C) stops a stream that is waiting for
// bytes; the run keeps no manifest.
func TestS3Cancel(t *testing.T) {
	s := newS3(t, map[string][]byte{"bucket/big.jsonl": bytes.Repeat([]byte("{}\n"), 1000000/3)})
	s.block, s.blockPart = "bucket/big.jsonl", []byte(`{"request_id":"r1","start":1796032800,"end":1796032801,"model":"m"}`+"\n")
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-s.started; cancel() }()
	out := filepath.Join(t.TempDir(), "out")
	_, err := Run(ctx, Options{Inputs: []Input{{Tier: Client, Pattern: "s3://bucket/big.jsonl"}}, Out: out})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a cancelled run left a manifest: %v", err)
	}
}
