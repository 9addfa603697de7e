package teststack

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// Collector is a minimal OTLP/HTTP traces receiver that writes what it
// receives the way the OpenTelemetry Collector's file exporter does with
// its default settings: each export request one line, the traces marshalled
// by pdata's JSON marshaller.
type Collector struct {
	Addr string
	Path string

	mu   sync.Mutex
	f    *os.File
	srv  *http.Server
	errs []error
}

// StartCollector listens on a free loopback port and appends to path.
func StartCollector(path string) (*Collector, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return nil, err
	}
	c := &Collector{Addr: l.Addr().String(), Path: path, f: f}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", c.traces)
	c.srv = &http.Server{Handler: mux}
	go c.srv.Serve(l)
	return c, nil
}

// Endpoint is the URL to give the OTLP/HTTP exporter.
func (c *Collector) Endpoint() string { return "http://" + c.Addr + "/v1/traces" }

func (c *Collector) traces(w http.ResponseWriter, r *http.Request) {
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(data); err != nil {
		c.fail(fmt.Errorf("collector: %w", err))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	line, err := (&ptrace.JSONMarshaler{}).MarshalTraces(req.Traces())
	if err != nil {
		c.fail(err)
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	c.mu.Lock()
	_, err = c.f.Write(append(bytes.TrimSpace(line), '\n'))
	c.mu.Unlock()
	if err != nil {
		c.fail(err)
	}
	resp, _ := ptraceotlp.NewExportResponse().MarshalProto()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(resp)
}

func (c *Collector) fail(err error) {
	c.mu.Lock()
	c.errs = append(c.errs, err)
	c.mu.Unlock()
}

// Close stops the receiver and closes the file; it reports the first error
// met while receiving.
func (c *Collector) Close() error {
	c.srv.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.f.Close()
	if len(c.errs) > 0 {
		return c.errs[0]
	}
	return err
}
