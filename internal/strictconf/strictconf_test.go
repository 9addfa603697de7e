package strictconf

import (
	"errors"
	"reflect"
	"testing"
)

type target struct {
	Tier   string         `toml:"tier" yaml:"tier"`
	Fields map[string]any `toml:"fields" yaml:"fields"`
}

// TestDecode: the extension chooses the decoder; YAML refuses unknown
// keys, TOML returns them dotted; a TOML syntax error says its line.
func TestDecode(t *testing.T) {
	t.Parallel()
	var v target
	und, err := Decode("m.toml", []byte("tier = \"client\"\ncolour = 1\n[fields]\nstart = \"a.b\"\n"), &v)
	if err != nil || v.Tier != "client" || v.Fields["start"] != "a.b" {
		t.Fatalf("toml: %+v, %v", v, err)
	}
	if !reflect.DeepEqual(und, []string{"colour"}) {
		t.Errorf("toml undecoded = %q, want [colour]", und)
	}
	_, err = Decode("m.TOML", []byte("tier = \"client\"\n\ntier = = 2\n"), &v)
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 3 {
		t.Errorf("toml syntax error = %v, want one on line 3", err)
	}
	v = target{}
	if _, err := Decode("m.yml", []byte("tier: gateway\nfields:\n  end: x\n"), &v); err != nil || v.Tier != "gateway" {
		t.Errorf("yaml: %+v, %v", v, err)
	}
	if _, err := Decode("m.yaml", []byte("tier: gateway\ncolour: 1\n"), &v); err == nil {
		t.Error("yaml with an unknown key decoded")
	}
	if _, err := Decode("m.json", []byte("{}"), &v); err == nil {
		t.Error("a .json file decoded")
	}
}
