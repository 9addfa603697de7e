package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/infertrace/infertrace/ingest"
)

// The gateway and client formats, read back by the ingest readers and
// compared with the native log of the same seed, record by record: the
// same requests have an intact record, and every time a format gives is
// the native one within the format's unit (the native log rounds to the
// microsecond, so 1 µs more per instant):
//
//	envoy         start truncated to the ms; DURATION truncated to the ms:
//	              end − start in (native − 1 ms, native]; no upstream times
//	envoy-json    start (µs, truncated) and every COMMON_DURATION point (µs,
//	              truncated): within 2 µs
//	nginx         end ($msec) truncated to the ms; $request_time and the
//	              last $upstream_response_time, differences of two
//	              truncated ms readings: within 1 ms; the upstream's end is
//	              placed at the end (ingest/formats/nginx.go); refused first
//	              attempts counted in Attempts
//	otel-gateway  every time in ns: within the native rounding
//	aiperf        ns: within the native rounding
//	jsonl         µs, truncated: within 1 µs more

// ingestEdges reads the client and gateway files of a simulation with the
// ingest readers: sniffed, but jsonl named and read with client.toml.
func ingestEdges(t *testing.T, dir string) ([]ingest.ClientRow, []ingest.GatewayRow) {
	t.Helper()
	inputs := []ingest.Input{{Tier: ingest.Gateway, Pattern: filepath.Join(dir, "gateway", "*")}}
	clients, _ := filepath.Glob(filepath.Join(dir, "client", "*"))
	for _, f := range clients {
		in := ingest.Input{Tier: ingest.Client, Pattern: f}
		if strings.HasSuffix(f, ".app.jsonl") {
			m, err := ingest.LoadMapping(filepath.Join(dir, ClientMappingFile))
			if err != nil {
				t.Fatal(err)
			}
			in.Format, in.Mapping = "jsonl", m
		}
		inputs = append(inputs, in)
	}
	out := t.TempDir()
	m, err := ingest.Run(context.Background(), ingest.Options{Inputs: inputs, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if failed := m.Failed(); len(failed) > 0 {
		t.Fatalf("not read to the end: %+v", failed)
	}
	var cr []ingest.ClientRow
	var gr []ingest.GatewayRow
	parts, _ := filepath.Glob(filepath.Join(out, "client", "*", "*.parquet"))
	for _, p := range parts {
		rs, err := parquet.ReadFile[ingest.ClientRow](p)
		if err != nil {
			t.Fatal(err)
		}
		cr = append(cr, rs...)
	}
	parts, _ = filepath.Glob(filepath.Join(out, "gateway", "*", "*.parquet"))
	for _, p := range parts {
		rs, err := parquet.ReadFile[ingest.GatewayRow](p)
		if err != nil {
			t.Fatal(err)
		}
		gr = append(gr, rs...)
	}
	return cr, gr
}

// edgeFormatOf is the simulated format of a client or gateway file.
func edgeFormatOf(path string) string {
	base := filepath.Base(path)
	for _, s := range []struct{ suffix, format string }{
		{".envoy.log", FormatEnvoy}, {".envoy.jsonl", FormatEnvoyJSON}, {".nginx.jsonl", FormatNginx}, {".nginx.log", FormatNginxCombined},
		{".otel.jsonl", FormatOTelGateway}, {".aiperf.jsonl", FormatAIPerf}, {".app.jsonl", FormatJSONL},
	} {
		if strings.HasSuffix(base, s.suffix) {
			return s.format
		}
	}
	return FormatNative
}

func TestEdgeFormatsRoundTrip(t *testing.T) {
	t.Parallel()
	base := testConfig(t, 1500)
	base.Seed = 5
	run(t, base)
	nc, ng := ingestEdges(t, base.Out)
	nativeC := map[string]ingest.ClientRow{}
	for _, r := range nc {
		nativeC[r.RequestID] = r
	}
	nativeG := map[string]ingest.GatewayRow{}
	for _, r := range ng {
		nativeG[r.RequestID] = r
	}
	baseFiles := dirFiles(t, base.Out)

	for _, formats := range [][]string{
		{"gw-1=envoy", "gw-2=nginx", "aiperf", "jsonl"},
		{"envoy-json", "otel-gateway", "client=aiperf"},
	} {
		t.Run(strings.Join(formats, ","), func(t *testing.T) {
			c := base
			c.Out = t.TempDir()
			c.Formats = formats
			run(t, c)

			// The simulation is the same: truth and server logs byte for byte.
			files := dirFiles(t, c.Out)
			for name, data := range baseFiles {
				if strings.HasPrefix(name, "server") || strings.HasPrefix(name, "truth") {
					if !bytes.Equal(data, files[name]) {
						t.Errorf("%s differs from the native run's", name)
					}
				}
			}

			cr, gr := ingestEdges(t, c.Out)
			const us, ms = int64(1000), int64(1_000_000)
			checks := map[string]*fmtCheck{}
			check := func(f string) *fmtCheck {
				if checks[f] == nil {
					checks[f] = &fmtCheck{t: t, format: f, compared: map[string]int{}, worst: map[string]int64{}}
				}
				return checks[f]
			}
			// within checks got − want ∈ [lo, hi] ns.
			within := func(ck *fmtCheck, id, field string, got, want, lo, hi int64) {
				t.Helper()
				ck.compared[field]++
				d := got - want
				if d < lo || d > hi {
					ck.fail("%s %s: %s off by %d ns from the native log's, want within [%d, %d]", ck.format, id, field, d, lo, hi)
				}
				ck.worst[field] = max(ck.worst[field], d, -d)
			}
			seen := map[string]bool{}
			retried := 0
			for _, g := range gr {
				f := edgeFormatOf(g.SourceFile)
				ck := check(f)
				ck.rows++
				n, ok := nativeG[g.RequestID]
				if !ok {
					ck.fail("%s %s: a gateway row the native log has no record of", f, g.RequestID)
					continue
				}
				seen["g"+g.RequestID] = true
				id := g.RequestID
				e2e, ne2e := g.End-g.Start, n.End-n.Start
				switch f {
				case FormatEnvoy:
					if g.Start%ms != 0 {
						ck.fail("envoy %s: start %d not whole ms", id, g.Start)
					}
					within(ck, id, "start", g.Start, n.Start, -ms-us, us)
					within(ck, id, "end-start", e2e, ne2e, -ms-2*us, 2*us)
					if g.UpstreamStart != 0 || g.UpstreamEnd != 0 {
						ck.fail("envoy %s: upstream times from the default format, which logs none", id)
					}
				case FormatEnvoyJSON:
					within(ck, id, "start", g.Start, n.Start, -2*us, 2*us)
					within(ck, id, "end-start", e2e, ne2e, -2*us, 2*us)
					if n.UpstreamStart != 0 {
						within(ck, id, "upstream_start-start", g.UpstreamStart-g.Start, n.UpstreamStart-n.Start, -2*us, 2*us)
						within(ck, id, "upstream_end-start", g.UpstreamEnd-g.Start, n.UpstreamEnd-n.Start, -2*us, 2*us)
					}
				case FormatNginx:
					if g.End%ms != 0 {
						ck.fail("nginx %s: end %d not whole ms", id, g.End)
					}
					within(ck, id, "end", g.End, n.End, -ms-us, us)
					within(ck, id, "end-start", e2e, ne2e, -ms-2*us, ms+2*us)
					if n.UpstreamStart != 0 {
						if g.UpstreamEnd != g.End {
							ck.fail("nginx %s: upstream end %d, want the end %d", id, g.UpstreamEnd, g.End)
						}
						within(ck, id, "upstream_end-upstream_start", g.UpstreamEnd-g.UpstreamStart, n.UpstreamEnd-n.UpstreamStart, -ms-2*us, ms+2*us)
						if g.Attempts != nil && *g.Attempts == 2 {
							retried++
						}
					} else if g.UpstreamStart != 0 {
						ck.fail("nginx %s: upstream times for a request never forwarded", id)
					}
				default:
					within(ck, id, "start", g.Start, n.Start, -us, us)
					within(ck, id, "end", g.End, n.End, -us, us)
					if n.UpstreamStart != 0 {
						within(ck, id, "upstream_start", g.UpstreamStart, n.UpstreamStart, -us, us)
						within(ck, id, "upstream_end", g.UpstreamEnd, n.UpstreamEnd, -us, us)
					}
				}
			}
			for _, r := range cr {
				f := edgeFormatOf(r.SourceFile)
				ck := check(f)
				ck.rows++
				n, ok := nativeC[r.RequestID]
				if !ok {
					ck.fail("%s %s: a client row the native log has no record of", f, r.RequestID)
					continue
				}
				seen["c"+r.RequestID] = true
				lo := -us
				if f == FormatJSONL {
					lo = -2 * us // truncated where native rounds
				}
				within(ck, r.RequestID, "start", r.Start, n.Start, lo, us)
				within(ck, r.RequestID, "end", r.End, n.End, lo, us)
				if n.FirstToken != 0 {
					within(ck, r.RequestID, "first_token", r.FirstToken, n.FirstToken, lo, us)
				} else if r.FirstToken != 0 {
					ck.fail("%s %s: a first token the native log has not", f, r.RequestID)
				}
			}
			for id := range nativeG {
				if !seen["g"+id] {
					t.Errorf("gateway %s: in the native log, no row from the formats", id)
				}
			}
			for id := range nativeC {
				if !seen["c"+id] {
					t.Errorf("client %s: in the native log, no row from the formats", id)
				}
			}
			var names []string
			for f := range checks {
				names = append(names, f)
			}
			slices.Sort(names)
			for _, f := range names {
				ck := checks[f]
				t.Logf("%-13s %5d rows; compared %v; worst |diff| ns %v", f, ck.rows, ck.compared, ck.worst)
				if ck.rows < 300 {
					t.Errorf("%s: only %d rows", f, ck.rows)
				}
			}
			if checks[FormatNginx] != nil {
				t.Logf("nginx: %d requests with a refused first attempt", retried)
				if retried == 0 {
					t.Error("nginx: no request with two attempts")
				}
			}
			if checks[FormatOTelGateway] != nil {
				split := otelSplitPairs(t, c.Out)
				t.Logf("otel-gateway: %d requests with the CLIENT span in one line and the SERVER span in a later one", split)
				if split == 0 {
					t.Error("otel-gateway: no span pair split across lines")
				}
			}
			if _, err := os.Stat(filepath.Join(c.Out, ClientMappingFile)); (err == nil) != slices.Contains(formats, "jsonl") {
				t.Errorf("client.toml: %v, with formats %v", err, formats)
			}
		})
	}
}

// otelSplitPairs counts the traces of the otel-gateway files whose CLIENT
// span is on an earlier line than their SERVER span.
func otelSplitPairs(t *testing.T, dir string) int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "gateway", "*.otel.jsonl"))
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		clientLine := map[string]int{}
		for i, line := range bytes.Split(b, []byte("\n")) {
			var doc struct {
				ResourceSpans []struct {
					ScopeSpans []struct {
						Spans []struct {
							TraceID string `json:"traceId"`
							Kind    int    `json:"kind"`
						} `json:"spans"`
					} `json:"scopeSpans"`
				} `json:"resourceSpans"`
			}
			if json.Unmarshal(line, &doc) != nil {
				continue // blank or cut
			}
			for _, rs := range doc.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					for _, sp := range ss.Spans {
						switch sp.Kind {
						case 3:
							clientLine[sp.TraceID] = i
						case 2:
							if l, ok := clientLine[sp.TraceID]; ok && l < i {
								n++
								delete(clientLine, sp.TraceID)
							}
						}
					}
				}
			}
		}
	}
	return n
}

func TestEdgeFormatChoice(t *testing.T) {
	t.Parallel()
	c := testConfig(t, 100)
	c.Formats = []string{"gateway=nginx", "gw-2=otel-gateway", "client=aiperf", "client-eu-west-2=jsonl", "tgi"}
	sum, _ := run(t, c)
	var got []string
	for _, f := range sum.Files {
		if f.Tier != "server" {
			got = append(got, f.Path)
		}
	}
	want := []string{
		"client/client-us-east-1.aiperf.jsonl", "client/client-us-east-2.aiperf.jsonl",
		"client/client-eu-west-1.aiperf.jsonl", "client/client-eu-west-2.app.jsonl",
		"client/client-ap-south-1.aiperf.jsonl", "client/client-ap-south-2.aiperf.jsonl",
		"gateway/gw-1.nginx.jsonl", "gateway/gw-2.otel.jsonl",
	}
	if !slices.Equal(got, want) {
		t.Errorf("files %v, want %v", got, want)
	}
	again := c
	again.Out = t.TempDir()
	run(t, again)
	fa, fb := dirFiles(t, c.Out), dirFiles(t, again.Out)
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between two runs with the same seed and formats", name)
		}
	}

	// Back to native: the other formats' files and client.toml go.
	c.Formats = nil
	run(t, c)
	for _, tier := range []string{"client", "gateway"} {
		left, _ := filepath.Glob(filepath.Join(c.Out, tier, "*"))
		for _, f := range left {
			if edgeFormatOf(f) != FormatNative {
				t.Errorf("%s left by the earlier run", f)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(c.Out, ClientMappingFile)); !os.IsNotExist(err) {
		t.Errorf("client.toml left by the earlier run: %v", err)
	}

	for _, bad := range [][]string{{"gw-3=nginx"}, {"gw-1=tgi"}, {"llama-3.1-8b-0=nginx"}, {"gateway=aiperf"}, {"client=envoy"}, {"kong"}} {
		c.Formats = bad
		if _, err := Run(context.Background(), c, nil); err == nil {
			t.Errorf("Formats %v: no error", bad)
		}
	}
}
