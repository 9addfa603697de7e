package contract

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/infertrace/infertrace/internal/suggest"
)

// Error is a mistake in a contract file: what is wrong, where. It prints
// as file:line: use case "chat": what, the line left out when unknown and
// the use case when the mistake is the file's. Parse returns one for every
// mistake it finds in the file; analyze returns one for a use case that
// selects no request of the run.
type Error struct {
	File string
	Line int    // 1 = first; 0: unknown
	Case string // the use case's name; "": the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += ":" + strconv.Itoa(e.Line)
	}
	if e.Case != "" {
		return fmt.Sprintf("%s: use case %q: %s", pos, e.Case, e.Msg)
	}
	return pos + ": " + e.Msg
}

// fieldError is a mistake in one key of a use case or constraint: the
// key names the line.
type fieldError struct {
	key, msg string
}

func (e *fieldError) Error() string { return e.msg }

func badField(key, format string, args ...any) error {
	return &fieldError{key: key, msg: fmt.Sprintf(format, args...)}
}

// describe says what a decoded value is, for "must be X, not Y": the
// string "800", the number 5, the boolean true, a list, a table.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "empty"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	case int, int64, uint64:
		return fmt.Sprintf("the number %v", x)
	case float64:
		return "the number " + strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return "a date-time"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// text reads a key whose value is text (name, metric, op, kind, eval).
func text(key string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	return "", badField(key, "%s must be a string, not %s", key, describe(v))
}

// DidYouMean is "; did you mean X?" for the one candidate nearest word (at
// most two edits away, or the only one word begins), else "".
func DidYouMean(word string, candidates []string) string {
	if best, ok := suggest.Nearest(word, candidates); ok && best != word {
		return "; did you mean " + best + "?"
	}
	return ""
}

// lines says on which line of the file each use case, constraint and key
// is, so that a mistake names its line. Keys: "c.-1." for use case c
// (0 = first), "c.-1.key" for its keys, "c.k." for its constraint k and
// "c.k.key" for the constraint's keys. A part not found is on no known
// line (0): a wrong line is worse than none.
type lines map[string]int

func lineKey(c, k int, key string) string { return fmt.Sprintf("%d.%d.%s", c, k, key) }

// at is the line of key in use case c's constraint k (k < 0: in the use
// case itself), else of the constraint or use case it is in, else 0.
func (l lines) at(c, k int, key string) int {
	if n := l[lineKey(c, k, key)]; n > 0 {
		return n
	}
	return l[lineKey(c, k, "")]
}

func (l lines) setOnce(c, k int, key string, line int) {
	if _, ok := l[lineKey(c, k, key)]; !ok {
		l[lineKey(c, k, key)] = line
	}
}

// tomlLines finds the lines of a contract in TOML by its headers
// ([[use_case]], [[use_case.constraint]], [use_case.match]) and the
// "key =" that begin a line. It reads no value, so a line inside a
// multi-line string could mislead it; check compares what it found with
// what the decoder read.
func tomlLines(data []byte) lines {
	l := lines{}
	c, k := -1, -1
	inKeys := false // the keys that follow belong to use case c (constraint k)
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		s := strings.TrimSpace(line)
		if strings.HasPrefix(s, "[") {
			h := s
			if j := strings.Index(h, "]"); j >= 0 {
				h = h[:j]
			}
			h = strings.ReplaceAll(strings.Trim(h, "[] \t"), " ", "")
			switch {
			case strings.HasPrefix(s, "[[") && h == "use_case":
				c, k, inKeys = c+1, -1, true
				l.setOnce(c, -1, "", n)
			case strings.HasPrefix(s, "[[") && h == "use_case.constraint" && c >= 0:
				k, inKeys = k+1, true
				l.setOnce(c, k, "", n)
			case !strings.HasPrefix(s, "[[") && h == "use_case.match" && c >= 0:
				l.setOnce(c, -1, "match", n)
				inKeys = false
			default:
				inKeys = false
			}
			continue
		}
		if !inKeys {
			continue
		}
		key := s
		if j := strings.IndexAny(key, "=. \t"); j > 0 {
			key = key[:j]
		} else {
			continue
		}
		if rest := strings.TrimLeft(s[len(key):], " \t"); !strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, ".") {
			continue
		}
		l.setOnce(c, k, strings.Trim(key, `"'`), n)
	}
	return l
}

// yamlLines finds the lines of a contract in YAML from its nodes.
func yamlLines(data []byte) lines {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	l := lines{}
	cases := mapValue(doc.Content[0], "use_case")
	if cases == nil || cases.Kind != yaml.SequenceNode {
		return nil
	}
	for c, uc := range cases.Content {
		l.setOnce(c, -1, "", uc.Line)
		if uc.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(uc.Content); i += 2 {
			key, v := uc.Content[i], uc.Content[i+1]
			l.setOnce(c, -1, key.Value, key.Line)
			if key.Value != "constraint" || v.Kind != yaml.SequenceNode {
				continue
			}
			for k, con := range v.Content {
				l.setOnce(c, k, "", con.Line)
				if con.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(con.Content); j += 2 {
					l.setOnce(c, k, con.Content[j].Value, con.Content[j].Line)
				}
			}
		}
	}
	return l
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// check keeps the lines only where they agree with what the decoder read:
// as many use cases (else none), and per use case as many constraints
// (else that use case's constraints have none).
func (l lines) check(raw *rawFile) lines {
	cases := 0
	for key := range l {
		if strings.HasSuffix(key, ".-1.") {
			cases++
		}
	}
	if cases != len(raw.UseCase) {
		return nil
	}
	for c, rc := range raw.UseCase {
		n := 0
		for l[lineKey(c, n, "")] > 0 {
			n++
		}
		if n == len(rc.Constraint) {
			continue
		}
		prefix := strconv.Itoa(c) + "."
		for key := range l {
			if strings.HasPrefix(key, prefix) && !strings.HasPrefix(key, prefix+"-1.") {
				delete(l, key)
			}
		}
	}
	return l
}
