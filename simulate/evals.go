package simulate

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
)

// Evals (Config.Evals) writes evals.csv: an offline evaluation of the
// simulated answers, for infertrace report --evals. Columns request_id,
// eval, score, pass; one row per completed request (client status 200)
// but every tenth, which stays unevaluated. The outcome is drawn from a
// hash of the request ID, never from the simulation's random stream, so
// the logs and the truth are the same with or without it:
//
//	pass probability 0.97, but 0.70 for prompts of EvalsLongPrompt tokens
//	or more on model EvalsWeakModel (its long-context answers are worse);
//	score uniform in [0.7, 1) when passed, [0, 0.7) when not.
const (
	EvalsFile       = "evals.csv"
	EvalsWeakModel  = "llama-3.1-8b"
	EvalsLongPrompt = 2048
)

type evalsWriter struct {
	f *os.File
	w *bufio.Writer
}

func newEvalsWriter(out string) (*evalsWriter, error) {
	f, err := os.Create(filepath.Join(out, EvalsFile))
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	w.WriteString("request_id,eval,score,pass\n")
	return &evalsWriter{f: f, w: w}, nil
}

// add writes the eval row of one finished request, if it gets one.
func (e *evalsWriter) add(r TruthRow) error {
	if e == nil || r.Status != 200 || !r.HasClient {
		return nil
	}
	h := fnv.New64a()
	h.Write([]byte(r.RequestID))
	x := h.Sum64()
	if x%10 == 0 {
		return nil
	}
	u := float64(x>>11) / (1 << 53) // uniform in [0, 1)
	p := 0.97
	if r.Model == EvalsWeakModel && r.PromptTokens >= EvalsLongPrompt {
		p = 0.70
	}
	pass := u < p
	// A second uniform from the hash's other bits for the score.
	v := float64((x*0x9e3779b97f4a7c15)>>11) / (1 << 53)
	score := 0.7 * v
	if pass {
		score = 0.7 + 0.3*v
	}
	_, err := fmt.Fprintf(e.w, "%s,quality,%.3f,%t\n", r.RequestID, score, pass)
	return err
}

func (e *evalsWriter) close() error {
	if e == nil {
		return nil
	}
	err := e.w.Flush()
	if cerr := e.f.Close(); err == nil {
		err = cerr
	}
	return err
}
