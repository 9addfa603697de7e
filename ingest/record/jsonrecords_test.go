package record

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// idParser is a line parser of JSON objects {"id":"…"}: one client row whose
// RequestID is the record compacted, an error for anything else.
type idParser struct{}

func (idParser) ParseLine(line []byte, out *RowQueue[ClientRow]) error {
	var v struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(line, &v); err != nil || v.ID == nil {
		return fmt.Errorf("%w: not an id record", ErrBadValue)
	}
	out.Next().RequestID = string(CompactJSON(line))
	return nil
}

type unit struct {
	line int64
	id   string // the row's RequestID, or "!" and the reject's reason
}

// readRecords reads doc with JSONRecords(idParser) and lists its units.
func readRecords(t *testing.T, doc string) ([]unit, error) {
	t.Helper()
	var got []unit
	out := &DocOut[ClientRow]{
		File: "f.json",
		Emit: func(rows []ClientRow) error {
			for _, r := range rows {
				got = append(got, unit{r.SourceLine, r.RequestID})
			}
			return nil
		},
		Reject: func(pe *ParseError) error {
			got = append(got, unit{pe.Line, "!" + pe.Err.Error()})
			return nil
		},
	}
	err := JSONRecords(func() LineParser[ClientRow] { return idParser{} })(strings.NewReader(doc), "f.json", out)
	if int64(len(got)) != out.Units {
		t.Errorf("%d units reported, %d counted", len(got), out.Units)
	}
	return got, err
}

// TestJSONRecordsShapes: the shapes a JSON document of records comes in,
// each record numbered by the line it starts on; a stray line of text is
// one rejected unit and reading goes on; a truncated object ends the file.
func TestJSONRecordsShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, doc string
		want      []unit
	}{
		{"jq . output", "{\n  \"id\": \"a\"\n}\n{\n  \"id\": \"b\",\n  \"n\": [\n    1\n  ]\n}\n",
			[]unit{{1, `{"id":"a"}`}, {4, `{"id":"b","n":[1]}`}}},
		{"array", "[\n  {\"id\": \"a\"},\n  {\n    \"id\": \"b\"\n  }\n]\n",
			[]unit{{2, `{"id":"a"}`}, {3, `{"id":"b"}`}}},
		{"array on one line", `[{"id":"a"},{"id":"b"}]`,
			[]unit{{1, `{"id":"a"}`}, {1, `{"id":"b"}`}}},
		{"one document", "\n\n{\n\"id\": \"x\\\"}{\"\n}", []unit{{3, `{"id":"x\"}{"}`}}},
		{"a banner line", "starting up\n{\n \"id\": \"a\"\n}\n",
			[]unit{{1, "!malformed JSON: expected an object, found 's'"}, {2, `{"id":"a"}`}}},
		{"a record the parser refuses", "{\"x\": 1}\n{\"id\": \"a\"}",
			[]unit{{1, "!bad value: not an id record"}, {2, `{"id":"a"}`}}},
		{"truncated", "{\"id\": \"a\"}\n{\n  \"id\": \"b\"\n",
			[]unit{{1, `{"id":"a"}`}, {2, "!malformed JSON: unexpected end of input inside an object (truncated file?)"}}},
		{"nested array", "[[{\"id\": \"a\"}]]", []unit{{1, "!malformed JSON: nested array at the top level"}}},
	} {
		got, err := readRecords(t, c.doc)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
}

// TestFirstJSONObject: what a line format's sniffer is shown of a document.
func TestFirstJSONObject(t *testing.T) {
	t.Parallel()
	for doc, want := range map[string]string{
		`{"a":1}{"b":2}`:         `{"a":1}`,
		`[{"a":[1,{}]},{"b":2}]`: `{"a":[1,{}]}`,
		`[{"a":"]}`:              `{"a":"]}`, // cut inside: the object as far as it goes
		`x`:                      `x`,
	} {
		if got := string(FirstJSONObject([]byte(doc))); got != want {
			t.Errorf("FirstJSONObject(%s) = %s, want %s", doc, got, want)
		}
	}
}

// FuzzJSONRecords: whatever the input, reading ends without panicking, its
// units start on lines of the input in order; and records written one per
// line read as the same records, on the same lines, wrapped in an array,
// and as the same records pretty-printed (json.Indent).
func FuzzJSONRecords(f *testing.F) {
	f.Add([]byte(`{"id":"a"}` + "\n" + `{"id":"b","n":[1,{"c":"}"}]}`))
	f.Add([]byte("{\n  \"id\": \"a\"\n}\n[\n{\"id\":\"b\"}]"))
	f.Add([]byte("text\n{\"x\":1}\n{\"id\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := readRecords(t, string(data))
		if err != nil {
			t.Fatalf("error from the parser's side: %v", err)
		}
		lines := int64(bytes.Count(data, []byte{'\n'})) + 1
		for i, u := range got {
			if u.line < 1 || u.line > lines || i > 0 && u.line < got[i-1].line {
				t.Fatalf("unit %d on line %d of %d, after %v", i, u.line, lines, got)
			}
		}
		// The metamorphic part, on the input's valid objects.
		var records []string
		for _, l := range bytes.Split(data, []byte{'\n'}) {
			var v map[string]any
			if json.Unmarshal(l, &v) == nil && v != nil && bytes.HasPrefix(bytes.TrimSpace(l), []byte("{")) {
				records = append(records, string(bytes.TrimSpace(l)))
			}
		}
		if len(records) == 0 {
			return
		}
		lined, _ := readRecords(t, strings.Join(records, "\n"))
		array, _ := readRecords(t, "[\n"+strings.Join(records, ",\n")+"\n]")
		var pretty bytes.Buffer
		for _, r := range records {
			if err := json.Indent(&pretty, []byte(r), "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
		}
		indented, _ := readRecords(t, pretty.String())
		if len(lined) != len(records) || len(array) != len(records) || len(indented) != len(records) {
			t.Fatalf("%d records read as %d lined, %d in an array, %d indented", len(records), len(lined), len(array), len(indented))
		}
		for i := range lined {
			if array[i].id != lined[i].id || indented[i].id != lined[i].id || lined[i].line != int64(i+1) || array[i].line != int64(i+2) {
				t.Fatalf("record %d: %v lined, %v in an array, %v indented", i, lined[i], array[i], indented[i])
			}
		}
	})
}
