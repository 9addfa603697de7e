package ingest

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// BenchmarkStripPrefix: chunking 8 MiB of vLLM-like lines behind a
// timestamp prefix (whose time each line keeps) and behind a compose
// prefix (no time): allocations stay per chunk, not per line.
func BenchmarkStripPrefix(b *testing.B) {
	for _, c := range []struct {
		name   string
		prefix func(i int) string
	}{
		{"timestamp", func(i int) string { return fmt.Sprintf("2026-11-30T10:%02d:%02d.%09dZ ", i/60%60, i%60, i) }},
		{"compose", func(int) string { return "vllm-1  | " }},
	} {
		var in bytes.Buffer
		for i := 0; in.Len() < 8<<20; i++ {
			fmt.Fprintf(&in, "%sINFO 11-30 10:00:00 [logger.py:49] Received request chatcmpl-%d: params: SamplingParams(n=1).\n", c.prefix(i), i)
		}
		data := in.Bytes()
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				ch := newChunker("f", bytes.NewReader(data))
				for {
					k, err := ch.next()
					if k != nil {
						k.release()
					}
					if err == io.EOF {
						break
					}
				}
			}
		})
	}
}
