package formats

import "testing"

func FuzzGuideLLM(f *testing.F) {
	txtarSeeds(f, "guidellm.txtar")
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, _ := lgDecodeDoc(t, parseGuideLLM, in)
		for _, r := range rows {
			if r.Start == 0 || r.Format != formatGuideLLM {
				t.Fatalf("row without its start: %+v", r)
			}
		}
	})
}
