package ingest

import (
	"os"
	"runtime/debug"
	"sync"
)

// gcPercent is the garbage collector's target while Run works, unless GOGC
// is set. Ingest's live heap is small and mostly pointer-free buffers
// (chunks, pages, batches), so a collection is cheap, and the heap's growth
// between collections, not what is live, is most of peak memory: at 50
// rather than Go's 100 peak RSS is a fifth lower for 2-3% more CPU.
const gcPercent = 50

var gcTuning struct {
	sync.Mutex
	runs int // Runs under way
	old  int // the setting before the first of them
}

// tuneGC sets the collector's target for a run and returns the function
// that ends it; the caller's setting is back when the last of concurrent
// runs ends.
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	g := &gcTuning
	g.Lock()
	defer g.Unlock()
	if g.runs == 0 {
		g.old = debug.SetGCPercent(gcPercent)
	}
	g.runs++
	return func() {
		g.Lock()
		defer g.Unlock()
		if g.runs--; g.runs == 0 {
			debug.SetGCPercent(g.old)
		}
	}
}
