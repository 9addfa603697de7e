package simulate

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkRunPeakHeap reports the peak HeapInuse while generating 100k and
// 1M requests; with memory bounded by the requests in flight the two peaks
// are about the same. Run with:
//
//	go test -run '^$' -bench RunPeakHeap -benchtime 1x ./simulate/
func BenchmarkRunPeakHeap(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			c := DefaultConfig()
			c.Requests = n
			var peak uint64
			for i := 0; i < b.N; i++ {
				c.Out = b.TempDir()
				runtime.GC()
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					var ms runtime.MemStats
					tick := time.NewTicker(10 * time.Millisecond)
					defer tick.Stop()
					for {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapInuse)
						select {
						case <-stop:
							return
						case <-tick.C:
						}
					}
				}()
				sum, err := Run(context.Background(), c, nil)
				close(stop)
				wg.Wait()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(sum.MaxInFlight), "max-in-flight")
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "requests/s")
		})
	}
}
