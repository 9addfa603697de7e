package objstore

import (
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

const (
	testKeyID  = "AKIATESTKEYID0000001"
	testSecret = "s3cr3t-never-shown-0123456789abcdef"
)

// fakeS3 serves objects ("bucket/key" -> bytes) from an in-process S3
// server and points the AWS environment at it, with testKeyID's
// credentials, no shared files and no instance metadata. The server
// refuses requests signed with another key ID as S3 does
// (InvalidAccessKeyId); wrap, when not nil, wraps the server's handler.
// A request addressed virtual-host style would not reach it.
func fakeS3(t *testing.T, objects map[string]string, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	backend := s3mem.New()
	for name, body := range objects {
		bucket, key, _ := strings.Cut(name, "/")
		if ok, _ := backend.BucketExists(bucket); !ok {
			if err := backend.CreateBucket(bucket); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := backend.PutObject(bucket, key, nil, strings.NewReader(body), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
	}
	fake := gofakes3.New(backend).Server()
	if wrap != nil {
		fake = wrap(fake)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+testKeyID+"/") {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the streams cut on purpose
	srv.Start()
	t.Cleanup(srv.Close)
	env := map[string]string{
		"AWS_ENDPOINT_URL_S3":         srv.URL,
		"AWS_ENDPOINT_URL":            "",
		"AWS_ACCESS_KEY_ID":           testKeyID,
		"AWS_SECRET_ACCESS_KEY":       testSecret,
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_CONFIG_FILE":             filepath.Join(t.TempDir(), "none"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(t.TempDir(), "none"),
		"AWS_EC2_METADATA_DISABLED":   "true",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	return srv
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, bucket, key, err string }{
		{"s3://logs/a/*.gz", "logs", "a/*.gz", ""},
		{"s3://logs", "logs", "", ""},
		{"s3://logs/", "logs", "", ""},
		{"s3://logs/a?[0-9].log", "logs", "a?[0-9].log", ""},
		{"s3:///a", "", "", "names no bucket"},
		{"s3://lo*s/a", "", "", "bucket name cannot be a pattern"},
		{"s3://logs/a[", "", "", "syntax error in pattern"},
		{"s3://" + testKeyID + ":" + testSecret + "@logs/a", "", "", "holds no credentials"},
		{"s3://minio:9000/logs/a", "", "", "holds no credentials or endpoint"},
	} {
		b, k, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %v, want an error saying %q", c.in, err, c.err)
			}
			if err != nil && (strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), testKeyID)) {
				t.Errorf("%s: the error quotes the credentials: %v", c.in, err)
			}
			continue
		}
		if err != nil || b != c.bucket || k != c.key {
			t.Errorf("%s: got %q %q %v, want %q %q", c.in, b, k, err, c.bucket, c.key)
		}
	}
}

// TestList: a key glob matches as a local glob does ('*' within a
// segment), under the literal prefix only; a key without wildcards is one
// object or a directory; directory markers are no objects.
func TestList(t *testing.T) {
	fakeS3(t, map[string]string{
		"logs/gw/a.log":        "a\n",
		"logs/gw/b.log.gz":     "bb\n",
		"logs/gw/old/c.log":    "c\n",
		"logs/gw/new/":         "",
		"logs/gw2/d.log":       "d\n",
		"logs/gw.log":          "e\n",
		"logs/client/x.jsonl":  "x\n",
		"logs/client/y.jsonl":  "y\n",
		"logs/client/z.txt":    "z\n",
		"other/gw/a.log":       "o\n",
		"logs/2026-11-30/a.gz": "1\n",
		"logs/2026-12-01/a.gz": "2\n",
	}, nil)
	c, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern string
		keys    []string
		subdirs []string
	}{
		{"s3://logs/gw/*", []string{"gw/a.log", "gw/b.log.gz"}, nil},
		{"s3://logs/gw/*.log", []string{"gw/a.log"}, nil},
		{"s3://logs/gw*/*.log", []string{"gw/a.log", "gw2/d.log"}, nil},
		{"s3://logs/gw/*/*", []string{"gw/old/c.log"}, nil},
		{"s3://logs/client/[xz].*", []string{"client/x.jsonl", "client/z.txt"}, nil},
		{"s3://logs/2026-1?-*/a.gz", []string{"2026-11-30/a.gz", "2026-12-01/a.gz"}, nil},
		{"s3://logs/gw/a.log", []string{"gw/a.log"}, nil},
		{"s3://logs/gw.log", []string{"gw.log"}, nil},
		{"s3://logs/gw", []string{"gw/a.log", "gw/b.log.gz"}, []string{"new", "old"}},
		{"s3://logs/gw/", []string{"gw/a.log", "gw/b.log.gz"}, []string{"new", "old"}},
		{"s3://logs/client/*.csv", nil, nil},
		{"s3://logs/nothing", nil, nil},
	} {
		objs, subdirs, err := c.List(context.Background(), tc.pattern)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		var keys []string
		for _, o := range objs {
			keys = append(keys, strings.TrimPrefix(o.URL(), "s3://logs/"))
			if o.Key == "gw/a.log" && o.Size != 2 {
				t.Errorf("%s: size %d, want 2", o.Key, o.Size)
			}
			if o.ETag == "" {
				t.Errorf("%s: no ETag", o.URL())
			}
		}
		if !slices.Equal(keys, tc.keys) || !slices.Equal(subdirs, tc.subdirs) {
			t.Errorf("%s: got %q, subdirs %q; want %q, %q", tc.pattern, keys, subdirs, tc.keys, tc.subdirs)
		}
	}
}

// TestListErrors: a missing bucket and a refused credential are errors
// naming the URL (and never the secret); an endpoint that does not answer
// is one too, without the request's URL and query string.
func TestListErrors(t *testing.T) {
	srv := fakeS3(t, map[string]string{"logs/a.log": "a\n"}, nil)
	c, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = c.List(context.Background(), "s3://nobucket/a/*.log")
	if !errors.Is(err, ErrNoBucket) || !strings.HasPrefix(err.Error(), "s3://nobucket/a/*.log: no such bucket") {
		t.Errorf("missing bucket: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIAWRONGWRONGWRONG1")
	c, _ = New(context.Background())
	_, _, err = c.List(context.Background(), "s3://logs/*.log")
	if !errors.Is(err, ErrDenied) || !strings.HasPrefix(err.Error(), "s3://logs/*.log: access denied (InvalidAccessKeyId") ||
		strings.Contains(err.Error(), testSecret) || strings.Contains(err.Error(), "AKIAWRONG") {
		t.Errorf("wrong key: %v", err)
	}
	srv.Close() // nothing answers there now
	t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
	t.Setenv("AWS_MAX_ATTEMPTS", "1")
	c, _ = New(context.Background())
	_, _, err = c.List(context.Background(), "s3://logs/*.log")
	if err == nil || !strings.HasPrefix(err.Error(), "s3://logs/*.log: cannot reach the S3 endpoint: ") ||
		strings.Contains(err.Error(), "list-type") || strings.Contains(err.Error(), "?") {
		t.Errorf("no endpoint: %v", err)
	}
}

// TestOpen: an object is read whole or its first n bytes; a stream whose
// connection breaks is taken up where it stopped; a missing object is an
// error naming it.
func TestOpen(t *testing.T) {
	body := strings.Repeat("0123456789", 10000)
	// Cut the first GET of the whole object after 30000 bytes.
	var cut atomic.Int32
	fakeS3(t, map[string]string{"logs/a.log": body}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/logs/a.log" && r.Header.Get("Range") == "" && cut.Add(1) == 1 {
				h.ServeHTTP(&cutWriter{ResponseWriter: w, left: 30000}, r)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	c, err := New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	objs, _, err := c.List(context.Background(), "s3://logs/a.log")
	if err != nil || len(objs) != 1 {
		t.Fatalf("%v %v", objs, err)
	}
	o := objs[0]
	for _, n := range []int64{-1, 0, 5, 100000, 200000} {
		r := c.Open(context.Background(), o, n)
		got, err := io.ReadAll(r)
		r.Close()
		want := body
		if n >= 0 && n < int64(len(body)) {
			want = body[:n]
		}
		if err != nil || string(got) != want {
			t.Errorf("Open(%d): %d bytes, %v; want %d bytes", n, len(got), err, len(want))
		}
	}
	if cut.Load() < 1 {
		t.Errorf("the stream was not cut")
	}
	r := c.Open(context.Background(), Object{Bucket: "logs", Key: "gone.log", Size: 10}, -1)
	_, err = io.ReadAll(r)
	if err == nil || !strings.HasPrefix(err.Error(), "s3://logs/gone.log: NoSuchKey") {
		t.Errorf("missing object: %v", err)
	}
	// ctx ends the stream.
	ctx, cancel := context.WithCancel(context.Background())
	r = c.Open(ctx, o, -1)
	buf := make([]byte, 100)
	if _, err := r.Read(buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(r); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "s3://logs/a.log: ") {
		t.Errorf("cancelled: %v", err)
	}
}

// cutWriter drops the connection once left bytes of the body are written.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (w *cutWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		w.ResponseWriter.Write(p[:w.left])
		w.ResponseWriter.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	w.left -= len(p)
	return w.ResponseWriter.Write(p)
}
