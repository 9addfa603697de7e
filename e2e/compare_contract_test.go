package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// chatSide is one side of compareContract, written and analyzed once per
// test binary (chatAnalyzed); each comparison reads a copy of it.
type chatSide struct {
	once  sync.Once
	root  string // removed by TestMain (removeIncidentDirs)
	dir   string
	evals string
	err   string
}

var chatSides sync.Map // "name shift pass" -> *chatSide

// chatAnalyzed writes analyzetest.Chat(name, shift, pass) into a directory
// and analyzes it, once per test binary.
func chatAnalyzed(t *testing.T, name string, shift int64, pass int) *chatSide {
	t.Helper()
	v, _ := chatSides.LoadOrStore(fmt.Sprint(name, shift, pass), &chatSide{})
	c := v.(*chatSide)
	c.once.Do(func() {
		c.err = "the test that analyzed it stopped"
		root, err := os.MkdirTemp("", "infertrace-chat-")
		if err != nil {
			c.err = err.Error()
			return
		}
		c.root = root
		f, e := analyzetest.Chat(name, shift, pass)
		dir := filepath.Join(root, name)
		if err := analyzetest.Write(context.Background(), dir, f, analyzetest.DefaultOffsets); err != nil {
			c.err = err.Error()
			return
		}
		if code, _, stderr := runCLI(t, "analyze", "--quiet", dir); code != 0 {
			c.err = "analyze: " + stderr
			return
		}
		c.dir, c.evals, c.err = dir, e, ""
	})
	if c.err != "" {
		t.Fatal(c.err)
	}
	return c
}

// compareContract writes a baseline and a target of 400 chat requests
// each (analyzetest.Chat: the target's TTFT shifted by shift ms, pass of
// its 400 requests passing their eval against 380 on the baseline),
// analyzes both (once per test binary, chatAnalyzed) and runs compare
// --contract on copies of them.
func compareContract(t *testing.T, shift int64, pass int, extra ...string) (int, string, string) {
	t.Helper()
	root := t.TempDir()
	var evals strings.Builder
	evals.WriteString("request_id,pass\n")
	var dirs []string
	for _, side := range []struct {
		name  string
		shift int64
		pass  int
	}{{"b", 0, 380}, {"t", shift, pass}} {
		a := chatAnalyzed(t, side.name, side.shift, side.pass)
		dir := filepath.Join(root, side.name)
		if err := os.CopyFS(dir, os.DirFS(a.dir)); err != nil {
			t.Fatal(err)
		}
		evals.WriteString(a.evals)
		dirs = append(dirs, dir)
	}
	contract := filepath.Join(root, "contract.toml")
	evalsFile := filepath.Join(root, "evals.csv")
	if err := os.WriteFile(contract, []byte(analyzetest.ChatContract), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evalsFile, []byte(evals.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return runCLI(t, append([]string{"compare", "--quiet", dirs[0], dirs[1], "--contract", contract, "--evals", evalsFile}, extra...)...)
}

// compare --contract says its verdict first: accept when P95 TTFT worsens
// 30 ms within its 50 ms and quality holds; reject, on quality, when the
// eval pass rate drops from 95% to 80%.
func TestCompareContractVerdict(t *testing.T) {
	t.Parallel()
	code, md, stderr := compareContract(t, 30, 380)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	v, f := strings.Index(md, "## Verdict against the contract"), strings.Index(md, "## Findings")
	if v < 0 || f < v {
		t.Fatalf("the verdict is not before the findings:\n%s", md)
	}
	for _, want := range []string{
		"**ACCEPT: chat: quality holds and every worsening is allowed (client TTFT P95 +30.0 ms, within its allowance of 50.0 ms).**",
		"| 1 | quality | eval pass rate | ≥ 90.0% | 95.0% | 400 | 95.0% | 400 | +0.0 pp |",
		"| 2 | latency | client TTFT P95 | ≤ 800.0 ms | 479.0 ms | 400 | 509.0 ms | 400 | +30.0 ms |",
		"| 50.0 ms | worsened within its allowance |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("compare lacks %q:\n%s", want, md[v:f])
		}
	}

	out := t.TempDir()
	code, stdout, stderr := compareContract(t, 0, 320, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "REJECT: chat quality drops (constraint 1): eval pass rate 95.0% → 80.0% (−15.0 pp") {
		t.Errorf("stdout does not say the rejection first:\n%s", stdout)
	}
	html, err := os.ReadFile(filepath.Join(out, "compare.html"))
	if err != nil {
		t.Fatal(err)
	}
	h := string(html)
	if v, f := strings.Index(h, `<p class="verdict reject"><b>REJECT: chat quality drops`), strings.Index(h, `<h2 id="findings">`); v < 0 || f < v {
		t.Errorf("compare.html does not say the rejection before the findings")
	}
}
