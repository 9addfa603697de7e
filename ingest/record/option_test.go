package record

import "testing"

// TestRegisterOption: the options formats declare come back by name, a
// shared option declared alike twice is one option, and one declared
// twice differently is refused.
func TestRegisterOption(t *testing.T) {
	t.Parallel()
	saved := options
	options = map[string]Option{}
	t.Cleanup(func() { options = saved })
	RegisterOption(Option{Name: "b-format", Value: "FORMAT", Usage: "b"})
	RegisterOption(Option{Name: "a-id", Default: "auto", Usage: "a"})
	RegisterOption(Option{Name: "a-id", Default: "auto", Usage: "a"})
	got := Options()
	if len(got) != 2 || got[0].Name != "a-id" || got[0].Default != "auto" || got[1].Name != "b-format" {
		t.Errorf("Options() = %+v, want a-id (default auto), b-format", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second, different declaration of a-id was accepted")
		}
	}()
	RegisterOption(Option{Name: "a-id", Default: "none", Usage: "a"})
}
