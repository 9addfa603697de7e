package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/infertrace/infertrace/ingest/internal/rowtext"
)

// TestSecretsNeverReachOutputs is a property: canaries (unique random
// tokens) placed where secrets live in the lines of every format's test
// data and of the shared samples (unknown members under generated names,
// casings, \u escapes and depths; message contents and user names; member
// names; Authorization headers and key=/token= values; URL query strings;
// quoted error text; a Common Log Format user), in lines that are accepted
// and in lines that are rejected, appear in no output of the run: not in
// the Parquet files (their bytes or their rows), rejects.jsonl,
// manifest.json, nor what the run logs.
func TestSecretsNeverReachOutputs(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	if s, err := strconv.ParseUint(os.Getenv("SECRETS_SEED"), 10, 64); err == nil {
		seed = s // to replay a failure: SECRETS_SEED=<the seed logged>
	}
	t.Logf("seed %d (replay with SECRETS_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	cases, _ := filepath.Glob("../testdata/ingest/*.txtar")
	more, _ := filepath.Glob("../testdata/ingest/*/*.txtar")
	for _, path := range append(cases, more...) {
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := &canaries{rng: rng}
		for i, f := range ar.Files {
			if f.Name == "args" || f.Name == "options" || strings.HasPrefix(f.Name, "want/") || strings.HasSuffix(f.Name, ".base64") {
				continue
			}
			ar.Files[i].Data = c.plant(f.Data)
		}
		dir := t.TempDir()
		inputs, opts := caseInputs(t, path, ar, dir)
		checkNoCanary(t, path, c, dir, inputs, opts)
	}

	// The shared samples, each sniffed in the tier of its directory.
	samples, _ := filepath.Glob("/work/shared/formats/*/*")
	real, _ := filepath.Glob("/work/shared/formats/*/*/*")
	c := &canaries{rng: rng}
	dir := t.TempDir()
	var inputs []Input
	for i, s := range append(samples, real...) {
		rel, _ := filepath.Rel("/work/shared/formats", s)
		tier := Tier(strings.Split(rel, string(filepath.Separator))[0])
		base := filepath.Base(s)
		if !strings.Contains(".log .jsonl .json .txt", filepath.Ext(base)) || strings.Contains(base, ".go.") {
			continue
		}
		b, err := os.ReadFile(s)
		if err != nil || (tier != Client && tier != Gateway && tier != Server) {
			continue
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%02d-%s", tier, i, base))
		writeInput(t, p, c.plant(b))
		inputs = append(inputs, Input{Tier: tier, Pattern: p})
	}
	if len(inputs) > 0 {
		checkNoCanary(t, "shared samples", c, dir, inputs, nil)
	}
}

// canaries plants and remembers the canaries of one run.
type canaries struct {
	rng  *rand.Rand
	list []string
}

func (c *canaries) next() string {
	const chars = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := []byte("cnry")
	for range 12 {
		b = append(b, chars[c.rng.IntN(len(chars))])
	}
	b = append(b, byte('0'+c.rng.IntN(10))) // digits and letters, as keys are
	s := string(b)
	c.list = append(c.list, s)
	return s
}

var (
	apiPath = regexp.MustCompile(`/v1/[a-z/_.-]*[a-z]`)
	clfHead = regexp.MustCompile(`^(\S+) (\S+) (\S+) \[`)
)

// plant puts canaries into every line of an input: the line as it was but
// with secrets added (accepted when the format skips what was added), and
// the same line cut short (rejected).
func (c *canaries) plant(data []byte) []byte {
	var out []byte
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			out = append(out, '\n')
			continue
		}
		line = apiPath.ReplaceAllStringFunc(line, func(p string) string {
			return p + []string{"?api_key=", "?x=1&token=", "?sig="}[c.rng.IntN(3)] + c.next()
		})
		if i := strings.IndexByte(line, '{'); i >= 0 && strings.TrimSpace(line[:i]) == "" {
			line = line[:i+1] + c.jsonSecret(0) + "," + line[i+1:]
		} else {
			if m := clfHead.FindStringSubmatchIndex(line); m != nil {
				line = line[:m[6]] + c.next() + line[m[7]:]
			}
			line += c.textSecret()
		}
		out = append(out, line...)
		out = append(out, '\n')
		if len(line) > 2 && c.rng.IntN(2) == 0 {
			out = append(out, line[:len(line)-2]...)
			out = append(out, '\n')
		}
	}
	return out
}

// jsonSecret is a member holding a canary where no format reads one.
func (c *canaries) jsonSecret(depth int) string {
	names := []string{"prompt", "Prompt", "PROMPT", `pr\u006fmpt`, "messages", "completion", "system_prompt",
		"query", "input_text", fmt.Sprintf("x_%d", c.rng.IntN(1000)), "request_body", "exception"}
	name := names[c.rng.IntN(len(names))]
	switch k := c.rng.IntN(11); {
	case k == 0 && depth < 4:
		return `"` + name + `":{` + c.jsonSecret(depth+1) + `}`
	case k == 1 && depth < 4:
		return `"` + name + `":[{` + c.jsonSecret(depth+1) + `}]`
	case k == 2:
		return `"messages":[{"role":"user","name":"` + c.next() + `","content":"` + c.next() + `"}]`
	case k == 3:
		return `"user":{"id":"` + c.next() + `","name":"` + c.next() + `"}`
	case k == 4:
		return `"tools":[{"function":{"name":"` + c.next() + `"}}],"metadata":{"event":"` + c.next() + `"}`
	case k == 5:
		return `"` + c.next() + `":1`
	case k == 6:
		return `"headers":{"Authorization":"Bearer ` + c.next() + `","X-Api-Key":"` + c.next() + `"}`
	case k == 7: // the canary spelled with \u escapes
		var b strings.Builder
		for _, r := range c.next() {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return `"` + name + `":"` + b.String() + `"`
	case k == 8:
		return `"` + name + `":"error: \"` + c.next() + `\" in 'api_key=` + c.next() + `'"`
	}
	return `"` + name + `":"` + c.next() + `"`
}

// textSecret is what a text line gains: a credential in one of its forms.
func (c *canaries) textSecret() string {
	switch c.rng.IntN(6) {
	case 0:
		return " Authorization: Bearer " + c.next()
	case 1:
		return " api_key=" + c.next()
	case 2:
		return ` token="` + c.next() + `"`
	case 3:
		return " password=" + c.next() + " user=" + c.next()
	case 4:
		return " Basic " + c.next()
	}
	return " prompt: '" + c.next() + "'"
}

// caseInputs writes the inputs of a testdata/ingest case into dir.
func caseInputs(t *testing.T, path string, ar *txtar.Archive, dir string) ([]Input, map[string]string) {
	t.Helper()
	var args string
	opts := map[string]string{}
	for _, f := range ar.Files {
		switch {
		case f.Name == "args":
			args = string(f.Data)
		case f.Name == "options":
			for _, line := range strings.Split(strings.TrimSpace(string(f.Data)), "\n") {
				if k, v, ok := strings.Cut(line, " "); ok {
					opts[k] = v
				}
			}
		case !strings.HasPrefix(f.Name, "want/"):
			writeInput(t, filepath.Join(dir, f.Name), f.Data)
		}
	}
	var inputs []Input
	for _, line := range strings.Split(strings.TrimSpace(args), "\n") {
		fields := strings.Fields(line)
		in, err := ParseInput(Tier(fields[0]), fields[1])
		if err != nil {
			t.Fatal(err)
		}
		in.Pattern = filepath.Join(dir, in.Pattern)
		if len(fields) > 2 {
			if in.Mapping, err = LoadMapping(filepath.Join(filepath.Dir(path), fields[2])); err != nil {
				t.Fatal(err)
			}
		}
		inputs = append(inputs, in)
	}
	return inputs, opts
}

// checkNoCanary runs the inputs and looks for every canary in every output.
func checkNoCanary(t *testing.T, name string, c *canaries, dir string, inputs []Input, opts map[string]string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	var log bytes.Buffer
	m, err := Run(context.Background(), Options{Inputs: inputs, Out: out, Workers: 2, FormatOptions: opts, Log: &log})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	texts := map[string]string{"the log": log.String(), "the returned manifest": fmt.Sprintf("%+v", m),
		"client rows":  rowtext.Table[ClientRow](t, out, Client, dir),
		"gateway rows": rowtext.Table[GatewayRow](t, out, Gateway, dir),
		"server rows":  rowtext.Table[ServerRow](t, out, Server, dir)}
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			texts[p] = string(b)
		}
		return nil
	})
	for where, text := range texts {
		for _, s := range c.list {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s: %s holds canary %s: …%s…", name, where, s, text[max(0, i-120):min(len(text), i+40)])
			}
		}
	}
}
