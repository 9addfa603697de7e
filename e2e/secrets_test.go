package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretsNotInReport runs the whole pipeline, reported by route, on the
// bundled data set with canaries (unique random tokens) planted where
// secrets live: query strings of routes and upstreams, error texts quoting
// a request, prompts, member names, Authorization headers and key=/token=
// values in accepted and rejected lines. No canary may reach report.md,
// report.html, stdout, stderr or any file of the store (ingest's
// TestSecretsNeverReachOutputs covers every format).
func TestSecretsNotInReport(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	var list []string
	canary := func() string {
		s := fmt.Sprintf("cnry%012x%d", rng.Uint64()&0xffffffffffff, rng.IntN(10))
		list = append(list, s)
		return s
	}
	in := t.TempDir()
	for _, tier := range []string{"client", "gateway", "server"} {
		files, _ := filepath.Glob(filepath.Join("testdata/native", tier, "*.jsonl"))
		os.MkdirAll(filepath.Join(in, tier), 0o755)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if strings.HasPrefix(line, "{") && strings.HasSuffix(line, "}") {
					line = strings.Replace(line, `"route":"/v1/chat/completions"`, `"route":"/v1/chat/completions?api_key=`+canary()+`"`, 1)
					line = strings.Replace(line, `"upstream":"`, `"upstream":"http://u:`+canary()+`@`, 1)
					line = strings.Replace(line, `"status":500`, `"status":500,"error":"invalid request: \"`+canary()+`\" token=`+canary()+`"`, 1)
					line = `{"Prompt":"` + canary() + `","` + canary() + `":1,"messages":[{"name":"` + canary() + `"}],` + line[1:]
				}
				out.WriteString(line + "\n")
				if i%50 == 0 {
					out.WriteString(line[:len(line)/2] + "\n") // rejected: cut short
					out.WriteString(`garbage Authorization: Bearer ` + canary() + ` api_key=` + canary() + ` password=` + canary() + "\n")
					out.WriteString(`{"request_id":"r-x","start":1796032800,"end":1796032801,"prompt_tokens":"Bearer ` + canary() + `"}` + "\n")
				}
			}
			if err := os.WriteFile(filepath.Join(in, tier, filepath.Base(f)), []byte(out.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", "--client", filepath.Join(in, "client", "*"), "--gateway", filepath.Join(in, "gateway", "*"),
		"--server", filepath.Join(in, "server", "*"), "--out", out, "--by", "route,model")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	texts := map[string]string{"stdout": stdout, "stderr": stderr}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			texts[p] = string(b)
		}
		return nil
	})
	if !strings.Contains(texts[filepath.Join(out, "report.md")], "/v1/chat/completions") {
		t.Errorf("report.md does not show the route")
	}
	for where, text := range texts {
		for _, s := range list {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s holds canary %s: …%s…", where, s, text[max(0, i-100):min(len(text), i+30)])
			}
		}
	}
}
