package scan

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// FuzzJSONObject checks the member scanner against encoding/json: every
// valid object is accepted, with the same string values. Top-level syntax is
// checked strictly; nested values are skipped, only checked for balance.
func FuzzJSONObject(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":"x\"y","c":{"d":[1,2,{"e":"}"}]},"f":null,"g":true}`,
		`{}`, ` { "a" : -0.5e+3 } `, `{"a":"\u00e9\ud83d\ude00"}`, `{"a":`, `[1]`, `{"a":1}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var strs = map[string]string{}
		err := Object(data, func(k []byte, esc bool, v Value) error {
			key, ok := Unquote(k, esc)
			if !ok {
				t.Fatalf("accepted key %q it cannot unquote", k)
			}
			switch v.Kind {
			case String:
				s, ok := Unquote(v.Raw, v.Escaped)
				if !ok {
					t.Fatalf("accepted string %q it cannot unquote", v.Raw)
				}
				strs[string(key)] = string(s)
			}
			return nil
		})
		var ref map[string]any
		refErr := json.Unmarshal(data, &ref)
		if refErr == nil && ref == nil {
			// encoding/json takes null for a nil map: not an object, and
			// the scanner rightly rejects it.
			refErr = errNull
		}
		if refErr == nil && err != nil {
			t.Fatalf("rejected the valid object %q: %v", data, err)
		}
		if err != nil || refErr != nil {
			// Accepted but invalid is allowed only inside nested values the
			// scanner skips without validating (it checks that brackets
			// balance and strings end), or for raw control characters.
			return
		}
		for k, s := range strs {
			if rs, ok := ref[k].(string); ok && rs != s && !bytes.ContainsRune([]byte(s), 0xFFFD) {
				t.Fatalf("member %q: got %q, encoding/json %q", k, s, rs)
			}
		}
	})
}

var errNull = errors.New("null, not an object")

func TestJSONObjectErrors(t *testing.T) {
	t.Parallel()
	for _, s := range []string{``, `   `, `{`, `{"a"`, `{"a":}`, `{"a":1,}`, `{"a":1}{`, `null`, ` null `, `{"a":tru}`, `{"a":01}`, `{"a":[1,2}`, `{"a":"\x"}`} {
		if err := Object([]byte(s), func([]byte, bool, Value) error { return nil }); err == nil {
			t.Errorf("%q: accepted", s)
		}
	}
}
