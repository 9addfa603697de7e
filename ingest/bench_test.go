package ingest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
)

// benchLines writes n native lines of one tier in the shape real logs have:
// a high-cardinality ID, wall-clock times, a few low-cardinality labels, and
// members ingest does not keep.
func benchFile(b *testing.B, tier Tier, n int) (string, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), string(tier)+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	models := []string{"llama-3.1-8b-instruct", "qwen2.5-32b-instruct", "mistral-7b-instruct-v0.3"}
	uses := []string{"chat", "summarize", "code", "rag"}
	for i := range n {
		t0 := base.Add(time.Duration(i) * 731 * time.Microsecond)
		switch tier {
		case Client:
			fmt.Fprintf(w, `{"request_id":"req-%08x-%04d","start":"%s","first_token":"%s","end":"%s","status":200,"error":null,"streamed":%t,"model":"%s","use_case":"%s","client":"loadgen-%d","region":"eu-west-%d","prompt_tokens":%d,"output_tokens":%d,"user_agent":"openai-python/1.54.0","http":{"method":"POST","path":"/v1/chat/completions"}}`+"\n",
				i, i%9973, t0.Format(time.RFC3339Nano), t0.Add(183*time.Millisecond).Format(time.RFC3339Nano),
				t0.Add(2*time.Second+417*time.Millisecond).Format(time.RFC3339Nano), i%3 != 0, models[i%3], uses[i%4], i%8, i%3, 200+i%1800, 20+i%700)
		case Server:
			fmt.Fprintf(w, `{"request_id":"req-%08x-%04d","arrival":%d.%06d,"scheduled":%d.%06d,"first_token":%d.%06d,"end":%d.%06d,"model":"%s","replica":"pod-%d","prompt_tokens":%d,"output_tokens":%d,"finish_reason":"stop","status":200}`+"\n",
				i, i%9973, t0.Unix(), t0.Nanosecond()/1000, t0.Unix(), t0.Nanosecond()/1000+10, t0.Unix(), t0.Nanosecond()/1000+20, t0.Unix()+2, t0.Nanosecond()/1000,
				models[i%3], i%6, 200+i%1800, 20+i%700)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	return path, st.Size()
}

// BenchmarkRun ingests one large client file and one large server file and
// reports throughput (MB/s of input) and the peak Go heap in use.
func BenchmarkRun(b *testing.B) {
	for _, tier := range []Tier{Client, Server} {
		b.Run(string(tier), func(b *testing.B) {
			path, size := benchFile(b, tier, 1_500_000)
			out := filepath.Join(b.TempDir(), "out")
			b.SetBytes(size)
			var peak atomic.Uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Go(func() {
				var ms runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
					runtime.ReadMemStats(&ms)
					if ms.HeapInuse > peak.Load() {
						peak.Store(ms.HeapInuse)
					}
				}
			})
			b.ResetTimer()
			for range b.N {
				if _, err := Run(context.Background(), Options{Inputs: []Input{{Tier: tier, Format: record.NativeFormat, Pattern: path}}, Out: out}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		})
	}
}
