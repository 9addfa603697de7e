package formats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/ingest/record"
)

func TestMappingErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ file, text, want string }{
		{"unknown.toml", "tier = \"client\"\n[fields]\nrequest_id = \"id\"\nstart = \"t0\"\nend = \"t1\"\nfirst_tokn = \"t2\"\n",
			`mapping DIR/unknown.toml: fields.first_tokn: unknown field (known: client, e2e, end, error, first_token, model, output_tokens, prompt_tokens, region, request_id, response_id, start, status, streamed, trace_id, ttft, use_case)`},
		{"unit.yaml", "tier: client\nfields:\n  request_id: id\n  start: {path: t0, unit: minutes}\n  end: t1\n",
			`mapping DIR/unit.yaml: fields.start.unit: unknown unit "minutes" (want rfc3339, s, ms, us, ns or a Go time layout like 2006-01-02T15:04:05Z07:00)`},
		{"duration.toml", "tier = \"client\"\n[fields]\nrequest_id = \"id\"\nstart = \"t0\"\nend = \"t1\"\ne2e = \"lat\"\n",
			`mapping DIR/duration.toml: fields.e2e.unit: missing (a duration needs s, ms, us or ns)`},
		{"labelunit.toml", "tier = \"client\"\n[fields]\nrequest_id = \"id\"\nstart = \"t0\"\nend = \"t1\"\nmodel = { path = \"m\", unit = \"ms\" }\n",
			`mapping DIR/labelunit.toml: fields.model.unit: only times and durations have a unit`},
		{"required.toml", "tier = \"client\"\n[fields]\nrequest_id = \"id\"\nstart = \"t0\"\n",
			`mapping DIR/required.toml: fields.end: missing (request_id, start, end must be mapped)`},
		{"path.yml", "tier: client\nfields:\n  request_id: \"a..b\"\n  start: t0\n  end: t1\n",
			`mapping DIR/path.yml: fields.request_id: path "a..b": empty member name`},
		{"index.toml", "tier = \"client\"\n[fields]\nrequest_id = \"a[x]\"\nstart = \"t0\"\nend = \"t1\"\n",
			`mapping DIR/index.toml: fields.request_id: path "a[x]": bad array index [x]`},
		{"key.toml", "tier = \"client\"\n[fields]\nrequest_id = { path = \"id\", units = \"ms\" }\nstart = \"t0\"\nend = \"t1\"\n",
			`mapping DIR/key.toml: fields.request_id.units: unknown key (known: path, unit, clock)`},
		{"top.toml", "tier = \"client\"\nformat = \"x\"\n[fields]\nrequest_id = \"id\"\nstart = \"t0\"\nend = \"t1\"\n",
			`mapping DIR/top.toml: format: unknown key (known: tier, fields)`},
		{"top.yaml", "tier: client\nformat: x\nfields: {request_id: id, start: t0, end: t1}\n",
			`mapping DIR/top.yaml: yaml: unmarshal errors:` + "\n" + `  line 2: field format not found in type struct { Tier string "toml:\"tier\" yaml:\"tier\""; Fields map[string]interface {} "toml:\"fields\" yaml:\"fields\"" }`},
		{"tier.toml", "[fields]\nrequest_id = \"id\"\nstart = \"t0\"\nend = \"t1\"\n",
			`mapping DIR/tier.toml: tier: missing (tier = "client", "gateway" or "server")`},
		{"gw.toml", "tier = \"gateway\"\n[fields]\nrequest_id = \"id\"\n",
			`mapping DIR/gw.toml: fields.start: missing (request_id, start, end must be mapped)`},
		{"srv.toml", "tier = \"server\"\n[fields]\nrequest_id = \"id\"\narrival = \"t0\"\nupstream = \"u\"\n",
			`mapping DIR/srv.toml: fields.upstream: unknown field (known: arrival, decode, e2e, end, engine_request_id, error, finish_reason, first_token, inference, model, output_tokens, prefill, prompt_tokens, queue, replica, request_id, scheduled, status, trace_id, ttft)`},
		{"proxy.toml", "tier = \"proxy\"\n[fields]\n",
			`mapping DIR/proxy.toml: tier "proxy": unknown (want client, gateway or server)`},
		{"layout.toml", "tier = \"client\"\n[fields]\nrequest_id = \"id\"\nstart = { path = \"t0\", unit = \"2006-13-45\" }\nend = \"t1\"\n",
			`mapping DIR/layout.toml: fields.start.unit: bad Go time layout "2006-13-45": parsing time …`},
		{"mapping.json", "{}", `mapping DIR/mapping.json: want a .toml, .yaml or .yml file`},
	} {
		path := filepath.Join(dir, tc.file)
		os.WriteFile(path, []byte(tc.text), 0o644)
		_, err := record.LoadMapping(path)
		if err == nil {
			t.Errorf("%s: no error", tc.file)
			continue
		}
		got := strings.ReplaceAll(err.Error(), dir, "DIR")
		if prefix, ok := strings.CutSuffix(tc.want, "…"); got != tc.want && !(ok && strings.HasPrefix(got, prefix)) {
			t.Errorf("%s:\n got %s\nwant %s", tc.file, got, tc.want)
		}
	}
	if _, err := record.LoadMapping(filepath.Join(dir, "nope.toml")); err == nil || !strings.Contains(err.Error(), "nope.toml") {
		t.Errorf("a missing file: %v", err)
	}
}

// Run refuses jsonl without a mapping, and a mapping with another format
// or tier, before reading anything.
func TestMappedInputErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte("{}\n"), 0o644)
	m, err := record.LoadMapping("../../testdata/mappings/client.toml")
	if err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(dir, "a.jsonl")
	for _, tc := range []struct {
		in   ingest.Input
		want string
	}{
		{ingest.Input{Tier: record.Client, Format: formatJSONL, Pattern: pattern}, "the jsonl format needs a mapping file (--map FILE)"},
		{ingest.Input{Tier: record.Client, Format: formatAIPerf, Pattern: pattern, Mapping: m}, "a mapping (../../testdata/mappings/client.toml) is for the jsonl format only"},
		{ingest.Input{Tier: record.Server, Pattern: pattern, Mapping: m}, "mapping ../../testdata/mappings/client.toml is for the client tier"},
	} {
		_, err := ingest.Run(context.Background(), ingest.Options{Inputs: []ingest.Input{tc.in}, Out: filepath.Join(dir, "out")})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want …%s", tc.in, err, tc.want)
		}
	}
	// Without a format, a mapping means jsonl.
	run, err := ingest.Run(context.Background(), ingest.Options{Inputs: []ingest.Input{{Tier: record.Client, Pattern: pattern, Mapping: m}}, Out: filepath.Join(dir, "out")})
	if err != nil || run.Files[0].Format != formatJSONL {
		t.Errorf("mapping without a format: %v %+v", err, run)
	}
}

func FuzzMapped(f *testing.F) {
	txtarSeeds(f, "mapped/client.txtar")
	txtarSeeds(f, "mapped/missing_path.txtar")
	var maps []*mapping
	for _, name := range []string{"client.toml", "client_layout.toml"} {
		m, err := loadMapping("../../testdata/mappings/" + name)
		if err != nil {
			f.Fatal(err)
		}
		maps = append(maps, m)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, m := range maps {
			rows, _ := lgDecodeLines(t, newMappedParser(m, clientTargets), in)
			for _, r := range rows {
				if r.RequestID == "" || r.Start == 0 || r.End == 0 {
					t.Fatalf("row without its required fields: %+v", r)
				}
			}
			m.check(in) // must not panic, whatever the line
		}
	})
}
