package formats

import "testing"

func FuzzK6(f *testing.F) {
	txtarSeeds(f, "k6.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeLines(t, &k6Parser{}, in)
		for _, r := range rows {
			if r.End == 0 || r.E2ENS == nil || r.Start != r.End-*r.E2ENS || r.Format != formatK6 {
				t.Fatalf("row without its times: %+v", r)
			}
		}
	})
}
