// Package strictconf reads the small configuration files users write for
// infertrace (a product contract, a mapping of JSON fields) as TOML or
// YAML, chosen by the file's extension, strictly: a key the target does not
// have is an error rather than a setting silently ignored.
package strictconf

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// An Error is a file that does not decode: Line is where, when the decoder
// says (0 otherwise), Msg why.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Decode decodes data, read from path, into v: TOML for .toml, YAML for
// .yaml and .yml. In YAML a key v has no field for is an error. TOML's
// decoder cannot be told so; the keys it left undecoded are returned
// instead, dotted ("use_case.colour"), for the caller to refuse, or to
// allow under a free-form table. Errors are *Error.
func Decode(path string, data []byte, v any) (undecoded []string, err error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		md, err := toml.Decode(string(data), v)
		if err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return nil, &Error{Line: pe.Position.Line, Msg: pe.Message}
			}
			return nil, &Error{Msg: err.Error()}
		}
		for _, k := range md.Undecoded() {
			undecoded = append(undecoded, k.String())
		}
		return undecoded, nil
	case ".yaml", ".yml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(v); err != nil {
			return nil, &Error{Msg: err.Error()}
		}
		return nil, nil
	}
	return nil, &Error{Msg: "want a .toml, .yaml or .yml file"}
}
