package ingest

import (
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// The TOML and YAML spellings of one mapping give the same rows.
func TestMappingTOMLAndYAMLAgree(t *testing.T) {
	ar, err := txtar.ParseFile("../testdata/ingest/mapped/client.txtar")
	if err != nil {
		t.Fatal(err)
	}
	got := runCase(t, "../testdata/ingest/mapped/client.txtar", ar)[0]["want/client"]
	var fromTOML, fromYAML []string
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		if rest, ok := strings.CutPrefix(line, "yaml/app.jsonl:"); ok {
			fromYAML = append(fromYAML, rest)
		} else if rest, ok := strings.CutPrefix(line, "app.jsonl:"); ok && len(fromTOML) < 2 {
			fromTOML = append(fromTOML, rest)
		}
	}
	if len(fromYAML) != 2 || strings.Join(fromTOML, "\n") != strings.Join(fromYAML, "\n") {
		t.Errorf("TOML rows:\n%s\nYAML rows:\n%s", strings.Join(fromTOML, "\n"), strings.Join(fromYAML, "\n"))
	}
}

// secretText is what the fixtures put in prompts, completions and payloads.
var secretText = regexp.MustCompile(`(?i)secret`)

// The load-generator fixtures carry prompts and completions: none of that
// text may reach a row or rejects.jsonl (the rejected units of the document
// formats are logged by position).
func TestLoadGeneratorsKeepNoText(t *testing.T) {
	for _, name := range []string{"genaiperf", "guidellm", "vllmbench", "mapped/client"} {
		path := "../testdata/ingest/" + name + ".txtar"
		ar, err := txtar.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := runCase(t, path, ar)[0]
		for _, section := range []string{"want/client", "want/rejects"} {
			if s := got[section]; secretText.MatchString(redactedAway(s)) {
				t.Errorf("%s %s holds user text:\n%s", name, section, s)
			}
		}
	}
}

// redactedAway drops the redaction placeholders' neighbourhood: a
// rejects.jsonl line of a line format keeps the line, redacted.
func redactedAway(s string) string {
	return regexp.MustCompile(`<redacted \d+ bytes>`).ReplaceAllString(s, "")
}
