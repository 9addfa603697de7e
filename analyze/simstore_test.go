package analyze

import (
	"context"
	"io"
	"path/filepath"
	"testing"

	"github.com/infertrace/infertrace/ingest"
	"github.com/infertrace/infertrace/simulate"
)

// simulated writes cfg's simulated logs and returns the inputs that read
// their three tiers.
func simulated(t *testing.T, ctx context.Context, cfg simulate.Config) []ingest.Input {
	t.Helper()
	if _, err := simulate.Run(ctx, cfg, io.Discard); err != nil {
		t.Fatal(err)
	}
	var inputs []ingest.Input
	for _, tier := range ingest.Tiers {
		in, err := ingest.ParseInput(tier, filepath.Join(cfg.Out, string(tier), "*"))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, in)
	}
	return inputs
}

// ingestStore ingests inputs into dir on one worker, failing the test when
// a file could not be read to its end.
func ingestStore(t *testing.T, ctx context.Context, dir string, inputs []ingest.Input) {
	t.Helper()
	m, err := ingest.Run(ctx, ingest.Options{Inputs: inputs, Out: dir, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Failed(); len(f) > 0 {
		t.Fatalf("ingest could not read %+v", f)
	}
}
