//go:build unix

package compare

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCompare times Run on each golden comparison, with the CPU
// time of the process per comparison (cpu-ms/op: DuckDB's threads
// included, so it means something on a busy machine) (no test asserts a
// timing).
func BenchmarkCompare(b *testing.B) {
	for _, c := range goldenComparisons {
		b.Run(c.name, func(b *testing.B) {
			opts := c.opts(b)
			start := cpuTime()
			for b.Loop() {
				if _, err := Run(context.Background(), opts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-start).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the user and system time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
