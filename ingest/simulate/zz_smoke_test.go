package simulate

import (
	"context"
	"os"
	"testing"
)

func TestZZSmoke(t *testing.T) {
	c := DefaultConfig()
	c.Out = "/tmp/simout"
	os.RemoveAll(c.Out)
	if _, err := Run(context.Background(), c, os.Stdout); err != nil {
		t.Fatal(err)
	}
}
