package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/simulate"
	"github.com/infertrace/infertrace/whatif"

	// The input formats, which ingest knows only once they are loaded.
	_ "github.com/infertrace/infertrace/ingest/formats"
)

// chromium is Debian's binary, which .ci/run installs when it is missing.
const chromium = "/usr/bin/chromium"

// browserEnv: INFERTRACE_ARTIFACTS names a directory for the screenshots
// (else a temporary one, logged); INFERTRACE_BROWSER_REPORT names one more
// report.html to check and photograph, e.g. the README's example run.
const (
	artifactsEnv = "INFERTRACE_ARTIFACTS"
	extraEnv     = "INFERTRACE_BROWSER_REPORT"
)

// newBrowser returns a context on the headless Chromium shared by the
// tests of the package (started on first use, with a fresh profile, and
// stopped by TestMain), or skips the test where it is not installed
// (failing it under CI, INFERTRACE_CI set). Each page opens in a tab of
// its own (openPage).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromium
	if _, err := os.Stat(path); err != nil {
		p, err := exec.LookPath("chromium")
		if err != nil && os.Getenv("INFERTRACE_CI") != "" {
			t.Fatalf("headless Chromium not found (%s, or chromium in PATH), and INFERTRACE_CI is set: CI must run the browser tests", chromium)
		}
		if err != nil {
			t.Skipf("headless Chromium not found (%s, or chromium in PATH): the browser test needs Debian's chromium package, which .ci/run installs with apt-get", chromium)
		}
		path = p
	}
	browser.once.Do(func() { browser.err = startBrowser(path) })
	if browser.err != nil {
		t.Fatalf("headless Chromium %s: %v", path, browser.err)
	}
	// A timeout so a hung browser fails the test instead of CI; no
	// assertion depends on time.
	ctx, cancel := context.WithTimeout(browser.ctx, 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// browser is the headless Chromium of the package's tests.
var browser struct {
	once    sync.Once
	ctx     context.Context // a chromedp context with the browser started
	cancel  func()          // stops it
	profile string          // its user data directory
	err     error
}

// startBrowser starts headless Chromium at path into browser.
func startBrowser(path string) error {
	profile, err := os.MkdirTemp("", "infertrace-chromium-")
	if err != nil {
		return err
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1366, 900),
	)
	bctx, bcancel := chromedp.NewContext(actx)
	browser.ctx, browser.profile = bctx, profile
	browser.cancel = func() {
		chromedp.Cancel(bctx)
		bcancel()
		acancel()
		os.RemoveAll(profile)
	}
	// A browser that does not start within the tests' timeout fails them.
	timer := time.AfterFunc(2*time.Minute, bcancel)
	defer timer.Stop()
	return chromedp.Do(bctx)
}

// stopBrowser stops the shared browser, if a test started it.
func stopBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
}

func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(artifactsEnv)
	if dir == "" {
		dir = t.TempDir()
		t.Logf("screenshots go to %s (set %s to keep them)", dir, artifactsEnv)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshots go to %s", dir)
	}
	return dir
}

// pageLog is what the page did while loading: console messages, errors and
// requests other than the report itself.
type pageLog struct {
	mu       sync.Mutex
	console  []string
	requests []string
}

func (l *pageLog) add(list *[]string, s string) {
	l.mu.Lock()
	*list = append(*list, s)
	l.mu.Unlock()
}

// layout is what the page measures of itself at a viewport of 1366 px.
type layout struct {
	InnerWidth   float64  `json:"innerWidth"`
	ScrollWidth  float64  `json:"scrollWidth"`
	Wide         []string `json:"wide"`
	SummaryTop   float64  `json:"summaryTop"`
	HeadlinesEnd float64  `json:"headlinesEnd"`
	TableEnd     float64  `json:"tableEnd"`
	Details      int      `json:"details"`
	Height       float64  `json:"height"`
	LegendEnd    float64  `json:"legendEnd"`
	Active       []string `json:"active"`
	Text         string   `json:"text"`
}

// measure takes the page's height as it opens (every <details> closed) and
// where the legend of the attribution bars ends, opens every <details>,
// then lists elements reaching past the
// viewport (but for those inside a box that scrolls or clips them: a wide
// table scrolls in its own box, not the page), where the headlines and the summary table end, and any element
// that could run code or fetch (there should be none).
const measure = `(() => {
  window.scrollTo(0, 0);
  const top = (sel) => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().top + window.scrollY : -1; };
  const end = (sel) => { const e = document.querySelector(sel); return e ? e.getBoundingClientRect().bottom + window.scrollY : -1; };
  const r = { innerWidth: window.innerWidth, summaryTop: top('#summary'), headlinesEnd: end('#summary dl.headlines'), tableEnd: end('#summary table.summary'),
    legendEnd: end('#legend'), height: document.documentElement.scrollHeight };
  const ds = document.querySelectorAll('details'); ds.forEach(d => d.open = true); r.details = ds.length;
  r.scrollWidth = document.documentElement.scrollWidth;
  r.wide = [];
  const clipped = (e) => { for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) { if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return true; } return false; };
  for (const e of document.querySelectorAll('body *')) {
    const b = e.getBoundingClientRect();
    if (b.width > 0 && b.right > window.innerWidth + 0.5 && r.wide.length < 10 && !clipped(e)) {
      r.wide.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined ? '.' + e.className : '') + ' right=' + Math.round(b.right) + ': ' + (e.textContent || '').slice(0, 60));
    }
  }
  r.active = [...document.querySelectorAll('script, img, iframe, object, embed, link, audio, video, [onerror], [onload], [onclick]')].map(e => e.outerHTML.slice(0, 80));
  r.text = document.body.innerText;
  return r;
})()`

// openPage loads path, writes its screenshots NAME-first-screen.png
// (1366×768), NAME-first-900.png (1366×900) and NAME-full.png (the whole
// page as it opens), and checks it at 1366×900: no console message, no
// request, no active element, nothing wider than 1366 px.
func openPage(t *testing.T, ctx context.Context, path, name, dir string) layout {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := (&url.URL{Scheme: "file", Path: abs}).String()
	tab, cancel := chromedp.NewContext(ctx)
	defer cancel()
	var pl pageLog
	if err := chromedp.Listen(tab, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			pl.add(&pl.console, fmt.Sprintf("console.%s", e.Type))
		case *runtime.EventExceptionThrown:
			pl.add(&pl.console, "exception: "+e.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if e.Entry != nil && (e.Entry.Level == log.EntryLevelError || e.Entry.Level == log.EntryLevelWarning) {
				pl.add(&pl.console, fmt.Sprintf("%s: %s", e.Entry.Level, e.Entry.Text))
			}
		case *network.EventRequestWillBeSent:
			if e.Request != nil && e.Request.URL != doc {
				pl.add(&pl.requests, e.Request.URL)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab,
		chromedp.EmulateViewport(1366, 768),
		chromedp.Navigate(doc),
		chromedp.WaitReady("body"),
	); err != nil {
		t.Fatal(err)
	}
	shot := func(file string, a chromedp.Action[[]byte]) {
		png, err := chromedp.Run(tab, a)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shot(name+"-first-screen.png", chromedp.CaptureScreenshot())
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1366, 900)); err != nil {
		t.Fatal(err)
	}
	shot(name+"-first-900.png", chromedp.CaptureScreenshot())
	shot(name+"-full.png", chromedp.FullScreenshot(100))
	l, err := chromedp.Run(tab, chromedp.Evaluate[layout](measure))
	if err != nil {
		t.Fatal(err)
	}
	// Let the page's own events arrive: a round trip after the last action.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[int](`1`)); err != nil {
		t.Fatal(err)
	}

	pl.mu.Lock()
	defer pl.mu.Unlock()
	if len(pl.console) > 0 {
		t.Errorf("%s: console messages or errors: %q", name, pl.console)
	}
	if len(pl.requests) > 0 {
		t.Errorf("%s: the report made network requests: %q", name, pl.requests)
	}
	if len(l.Active) > 0 {
		t.Errorf("%s: elements that run code or fetch: %q", name, l.Active)
	}
	if l.ScrollWidth > 1366 || l.ScrollWidth > l.InnerWidth || len(l.Wide) > 0 {
		t.Errorf("%s: wider than the %v px viewport (page %v px), every <details> open: %q", name, l.InnerWidth, l.ScrollWidth, l.Wide)
	}
	return l
}

// openReport is openPage, and checks that the headlines and the summary
// table are in the first 900 px.
func openReport(t *testing.T, ctx context.Context, path, name, dir string) layout {
	t.Helper()
	l := openPage(t, ctx, path, name, dir)
	if l.SummaryTop < 0 || l.HeadlinesEnd < 0 || l.TableEnd < 0 {
		t.Errorf("%s: no summary section with headlines and a summary table (%v, %v, %v)", name, l.SummaryTop, l.HeadlinesEnd, l.TableEnd)
	} else if l.HeadlinesEnd > 900 || l.TableEnd > 900 {
		t.Errorf("%s: the headlines end at %v px and the summary table at %v px: both must be in the first 900 px", name, l.HeadlinesEnd, l.TableEnd)
	}
	return l
}

// TestBrowser opens reports in headless Chromium: no console error, no
// network request, headlines and summary table in the first 900 px,
// nothing wider than 1366 px, and markup from logs shown as text.
func TestBrowser(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	dir := artifactDir(t)
	work := t.TempDir()
	write := func(name string, r *analyze.Result) string {
		var buf bytes.Buffer
		if err := Render(&buf, "html", r, nil); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(work, name+".html")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	l := openReport(t, ctx, write("standard", standardResult(t)), "standard", dir)
	if l.Details == 0 {
		t.Error("standard report: no collapsed long table (<details>)")
	}

	// The trend section (report --period day) within the width too.
	openReport(t, ctx, write("trend", trendResult(t)), "trend", dir)

	// The contract example of docs/contract.md: the bundled data with
	// --contract, --evals and --prices, whose summary table has the quality
	// and cost columns too.
	openReport(t, ctx, write("contract", contractResult(t)), "contract", dir)

	l = openReport(t, ctx, write("markup", evilResult()), "markup", dir)
	for _, s := range []string{evil, evilImg} {
		if !strings.Contains(l.Text, s) {
			t.Errorf("markup report: %q is not shown as text", s)
		}
	}

	if p := os.Getenv(extraEnv); p != "" {
		openReport(t, ctx, p, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), dir)
	}
}

// simStore simulates a stack of n requests at 0.01 requests/s (about
// n/864 days, so more than one week) with evals, and ingests and analyzes
// its logs into the returned store; it returns the directory of the logs
// too.
func simStore(t *testing.T, n int) (store, logs string) {
	t.Helper()
	ctx := context.Background()
	logs, store = filepath.Join(t.TempDir(), "logs"), filepath.Join(t.TempDir(), "out")
	cfg := simulate.DefaultConfig()
	cfg.Out, cfg.Requests, cfg.Seed, cfg.Evals = logs, n, 7, true
	cfg.RatePerSecond = float64(n) / 600000 // about a week whatever n: a trend of two weeks
	if _, err := simulate.Run(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	opt := ingest.Options{Out: store}
	for _, tier := range []ingest.Tier{ingest.Client, ingest.Gateway, ingest.Server} {
		i, err := ingest.ParseInput(tier, "native:"+filepath.Join(logs, string(tier), "*"))
		if err != nil {
			t.Fatal(err)
		}
		opt.Inputs = append(opt.Inputs, i)
	}
	if _, err := ingest.Run(ctx, opt); err != nil {
		t.Fatal(err)
	}
	// One DuckDB thread: the tests run in parallel on few cores, and the
	// page does not depend on threads.
	if _, err := analyze.RunWith(ctx, store, duck.Resources{Threads: 1}); err != nil {
		t.Fatal(err)
	}
	return store, logs
}

// simResult is the report of a simulated store with every section: the
// contract with evals and prices, and the trend by week with what changed
// in its last week.
func simResult(t *testing.T, store, logs string) (*analyze.Result, *compare.TrendComparison) {
	t.Helper()
	c, err := contract.Load("../testdata/contract/contract.toml", analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	opts := analyze.SummaryOptions{Contract: c, Period: analyze.PeriodWeek,
		Evals: filepath.Join(logs, "evals.csv"), Prices: "../testdata/contract/prices.csv",
		Resources: duck.Resources{Threads: 1}}
	res, err := analyze.Summarize(context.Background(), store, opts)
	if err != nil {
		t.Fatal(err)
	}
	trend, err := compare.Trend(context.Background(), store, opts, res.Trend) // the weekly page's "what changed"
	if err != nil {
		t.Fatal(err)
	}
	return res, trend
}

// simRequests is the size of the simulated run of TestBrowserSimulated:
// the 20,000 requests of the default simulation, over about a week, so
// that every section fills (a dozen slices, two weeks of trend).
const simRequests = 20000

// TestBrowserSimulated opens the report of a simulated run with every
// section (contract, evals, prices, the trend by week) and a what-if
// replay of it, with openReport's checks (nothing wider than 1366 px among
// them); the report has the legend of its attribution bars within the
// first screen (768 px) and is at most 12 screens long (12 × 768 px) as it
// opens, its long tables closed.
func TestBrowserSimulated(t *testing.T) {
	t.Parallel()
	ctx := newBrowser(t)
	dir := artifactDir(t)
	work := t.TempDir()
	store, logs := simStore(t, simRequests)
	write := func(name string, render func(io.Writer) error) string {
		var buf bytes.Buffer
		if err := render(&buf); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(work, name+".html")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	res, trend := simResult(t, store, logs)
	if len(res.Slices) < 10 || res.Trend == nil || len(res.Trend.Periods) < 2 || res.Contract == nil {
		t.Fatalf("the simulated run does not fill every section: %d slices, trend %v, contract %v", len(res.Slices), res.Trend != nil, res.Contract != nil)
	}
	l := openReport(t, ctx, write("simulated", func(w io.Writer) error { return Render(w, "html", res, trend) }), "simulated", dir)
	if l.LegendEnd < 0 || l.LegendEnd > 768 {
		t.Errorf("simulated: the legend of the attribution bars ends at %v px, not within the first screen (768 px)", l.LegendEnd)
	}
	t.Logf("simulated (%d requests): the report is %.0f px long as it opens, %.1f screens of 768 px", simRequests, l.Height, l.Height/768)
	if l.Height > 12*768 {
		t.Errorf("simulated: the report is %v px long as it opens, %.1f screens of 768 px: want at most 12", l.Height, l.Height/768)
	}
	w, err := whatif.Run(context.Background(), store, whatif.Options{Replicas: []string{"llama-3.1-70b=+1"}})
	if err != nil {
		t.Fatal(err)
	}
	openPage(t, ctx, write("whatif", func(out io.Writer) error { return RenderWhatIf(out, "html", w) }), "whatif", dir)
}

// contractResult is the report of the bundled data (testdata/native)
// judged against testdata/contract with its evals and prices, as the
// contract example of docs/contract.md runs it (once per test binary; each
// caller gets its own copy).
func contractResult(t *testing.T) *analyze.Result {
	t.Helper()
	return sharedResult(t, "contract", func() (*analyze.Result, error) {
		out := nativeDir(t)
		c, err := contract.Load("../testdata/contract/contract.toml", analyze.SliceColumns)
		if err != nil {
			return nil, err
		}
		return analyze.Summarize(context.Background(), out, analyze.SummaryOptions{Contract: c,
			Evals: "../testdata/contract/evals.csv", Prices: "../testdata/contract/prices.csv"})
	})
}
