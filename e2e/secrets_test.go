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
	runAsProcess(t) // every byte the process writes, DuckDB's and the runtime's too
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	var list []string
	canary := func() string {
		s := fmt.Sprintf(canaryPrefix+"%012x%d", rng.Uint64()&0xffffffffffff, rng.IntN(10))
		if len(s) != canaryLen {
			t.Fatalf("canary %q is not %d bytes long", s, canaryLen)
		}
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
	planted := make(map[string]bool, len(list))
	for _, s := range list {
		planted[s] = true
	}
	for where, text := range texts {
		for _, f := range findCanaries(text, planted) {
			t.Errorf("%s holds canary %s: …%s…", where, f.canary, text[max(0, f.at-100):min(len(text), f.at+30)])
		}
	}
}

// Every canary is canaryPrefix and 13 more bytes (12 hex digits, one
// decimal digit), so that one pass over a text finds every planted canary
// in it: each place canaryPrefix starts is looked up as a whole canary.
// (Searching the text once per canary took seconds: thousands of canaries
// times every file of the store.)
const (
	canaryPrefix = "cnry"
	canaryLen    = len(canaryPrefix) + 13
)

type canaryFound struct {
	canary string
	at     int // its first offset in the text
}

// findCanaries returns each canary of planted that text holds, once, with
// the offset of its first occurrence, in the order of those offsets.
func findCanaries(text string, planted map[string]bool) []canaryFound {
	var found []canaryFound
	seen := map[string]bool{}
	for i := 0; ; i++ {
		j := strings.Index(text[i:], canaryPrefix)
		if j < 0 {
			return found
		}
		i += j
		if s := text[i:min(len(text), i+canaryLen)]; planted[s] && !seen[s] {
			seen[s] = true
			found = append(found, canaryFound{s, i})
		}
	}
}

// TestFindCanaries: findCanaries finds what strings.Index per canary
// would: every planted canary, once, at its first offset, also right after
// an unplanted or overlapping start and at the very end of the text.
func TestFindCanaries(t *testing.T) {
	t.Parallel()
	a, b, c := "cnry0123456789ab1", "cnryfedcba9876542", "cnry0000000000003"
	planted := map[string]bool{a: true, b: true, c: true}
	text := "x cnry" + a + " " + b + "\x00" + a + " cnryffffffffffff9 " + b[:10] + " " + c
	got := findCanaries(text, planted)
	var want []canaryFound
	for _, s := range []string{a, b, c} {
		if i := strings.Index(text, s); i >= 0 {
			want = append(want, canaryFound{s, i})
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 3 {
		t.Errorf("findCanaries = %v, want %v", got, want)
	}
	if got := findCanaries("no canary cnry", planted); got != nil {
		t.Errorf("findCanaries of a text without canaries = %v", got)
	}
}
