package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/infertrace/infertrace/internal/duck"
)

// progress shows on stderr how far a long command has got: while ingesting,
// the bytes read of the inputs' size, bytes and lines per second; while
// analyzing and reporting, the current step and its time so far. It is drawn
// only when stderr is a terminal and --quiet is not given; a nil *progress
// draws nothing. ingest and analyze only count and name steps; this is the
// one place that renders them (with progressbar, which owns the escape
// codes).
type progress struct {
	mu  sync.Mutex
	w   io.Writer
	bar *progressbar.ProgressBar // what is on screen; nil for nothing
	// ingesting: bar counts bytes of total, and bytes and lines are
	// ingest's counters (see ingest.Progress).
	ingesting    bool
	total        int64
	start        time.Time
	bytes, lines atomic.Int64
	drawn        atomic.Bool // drawn since the first lines were read
	step         string

	stopTicks chan struct{}
	ticks     sync.WaitGroup
}

// progressTick is how often the display is redrawn (rates, elapsed time).
const progressTick = 250 * time.Millisecond

// isTerminal reports whether w is a terminal: the default of
// env.isTerminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// showProgress starts the progress display of a command, unless quiet or
// stderr is no terminal, and returns the function that ends it.
func (e *env) showProgress(quiet bool) (stop func()) {
	if quiet || e.isTerminal == nil || !e.isTerminal(e.stderr) {
		return func() {}
	}
	p := &progress{w: e.stderr, stopTicks: make(chan struct{})}
	p.ticks.Go(func() {
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-p.stopTicks:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw(false)
				p.mu.Unlock()
			}
		}
	})
	e.progress = p
	return func() {
		close(p.stopTicks)
		p.ticks.Wait()
		p.mu.Lock()
		p.clear()
		p.mu.Unlock()
		e.progress = nil
	}
}

// Start is ingest.Progress's: the bar of the bytes to read.
func (p *progress) Start(total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.ingesting, p.total, p.start = true, total, time.Now()
	p.bytes.Store(0)
	p.lines.Store(0)
	p.drawn.Store(false)
	max := total
	if max <= 0 {
		max = -1 // nothing to measure against: a spinner
	}
	p.bar = progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(20),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetSpinnerChangeInterval(0), // redrawn by the ticker
		progressbar.OptionSetDescription("ingest: "),
	)
	p.draw(false)
}

// Read is ingest.Progress's. It only counts, but for the first lines
// read, which are drawn at once.
func (p *progress) Read(bytes, lines int64) {
	p.bytes.Add(bytes)
	p.lines.Add(lines)
	if lines > 0 && p.drawn.CompareAndSwap(false, true) {
		p.mu.Lock()
		p.draw(false)
		p.mu.Unlock()
	}
}

// ingestDone draws the final count of an ingest and takes the bar away.
func (p *progress) ingestDone() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ingesting {
		p.draw(true)
		p.clear()
	}
}

// steps returns ctx with analyze's steps shown as "prefix: step".
func (p *progress) steps(ctx context.Context, prefix string) context.Context {
	if p == nil {
		return ctx
	}
	return duck.WithStep(ctx, func(name string) { p.setStep(prefix + ": " + name) })
}

// setStep shows step, with a spinner and its time so far.
func (p *progress) setStep(step string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	p.step = step
	p.bar = progressbar.NewOptions64(-1,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetSpinnerChangeInterval(0),
		progressbar.OptionSetDescription(step),
	)
	p.draw(false)
}

// done takes the display away at the end of a step of the command.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
}

// log returns w such that what is written to it, between two draws, starts
// on a line of its own.
func (p *progress) log(w io.Writer) io.Writer {
	if p == nil || w == nil {
		return w
	}
	return progressLog{p, w}
}

type progressLog struct {
	p *progress
	w io.Writer
}

func (l progressLog) Write(b []byte) (int, error) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if l.p.bar != nil {
		l.p.bar.Clear()
	}
	return l.w.Write(b)
}

// draw renders the current state; final shows an ingest's bar full. p.mu
// is held.
func (p *progress) draw(final bool) {
	if p.bar == nil {
		return
	}
	if !p.ingesting {
		p.bar.Describe(p.step)
		return
	}
	b, l := p.bytes.Load(), p.lines.Load()
	desc := "ingest: " + count(l) + " lines"
	if secs := time.Since(p.start).Seconds(); secs >= 1 {
		desc += ", " + count(int64(float64(l)/secs)) + " lines/s"
	}
	p.bar.Describe(desc + " ")
	if p.total <= 0 {
		return
	}
	if b > p.total { // a file grew while it was read
		p.total = b
		p.bar.ChangeMax64(b)
	}
	if final {
		b = p.total
	} else if b >= p.total {
		b = p.total - 1 // full only once ingest has finished
	}
	p.bar.Set64(b)
}

// clear takes the bar off the screen. p.mu is held.
func (p *progress) clear() {
	if p.bar != nil {
		p.bar.Clear()
	}
	p.bar, p.ingesting = nil, false
}

// count prints a count of lines short: 950, 12k, 3.4M, 27M.
func count(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return strconv.FormatInt(n, 10)
}
