package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// validatePage checks DIR/NAME.json against docs/NAME.schema.json (from
// the module root) and returns it decoded.
func validatePage(t *testing.T, dir, name string) map[string]any {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatalf("%s.json not written: %v", name, err)
	}
	f, err := os.Open(filepath.Join("docs", name+".schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sdoc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(name+".schema.json", sdoc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name + ".schema.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s.json does not match docs/%s.schema.json: %v", name, name, err)
	}
	var m map[string]any
	json.Unmarshal(doc, &m)
	return m
}

// compare, explain and whatif with --out write NAME.json beside NAME.md
// and NAME.html, say so on stdout, and the JSON matches its schema.
func TestPagesJSON(t *testing.T) {
	t.Parallel()
	dir := testdataStoreCopy(t) // what the three read: no report
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"compare", []string{"compare", dir, "--baseline", "10:00:00-10:00:25", "--target", "10:00:25-10:00:50"}},
		{"explain", []string{"explain", dir, "--limit", "2"}},
		{"whatif", []string{"whatif", dir, "--replicas", "llama-3.1-70b=+1"}},
	} {
		out := filepath.Join(t.TempDir(), tc.name)
		code, stdout, stderr := runCLI(t, append(tc.args, "--quiet", "--out", out)...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", tc.name, code, stderr)
		}
		for _, ext := range []string{"md", "html", "json"} {
			p := filepath.Join(out, tc.name+"."+ext)
			if !strings.Contains(stdout, tc.name+": "+p+"\n") {
				t.Errorf("%s: stdout does not name %s:\n%s", tc.name, p, stdout)
			}
		}
		m := validatePage(t, out, tc.name)
		switch tc.name {
		case "compare":
			w := m["baseline"].(map[string]any)["window"].(map[string]any)
			if w["first"] != "2026-11-30T10:00:00.000Z" || w["last"] != "2026-11-30T10:00:25.000Z" {
				t.Errorf("compare baseline window %v, want 10:00:00–10:00:25 on 2026-11-30", w)
			}
		case "explain":
			if n := len(m["requests"].([]any)); n != 2 {
				t.Errorf("explain.json has %d requests, want --limit 2", n)
			}
		case "whatif":
			if m["changed"] != true || len(m["models"].([]any)) != 2 {
				t.Errorf("whatif.json: changed %v, %d models", m["changed"], len(m["models"].([]any)))
			}
		}
	}
}
