package queries

import (
	"strings"
	"testing"
)

// parseStep reads the header and the statement of a step file, and names
// the file and line of a layout it does not hold.
func TestParseStep(t *testing.T) {
	t.Parallel()
	st, err := parseStep("p/020_b.sql", "b", "-- b: a table.\n--\n-- reads: a, client\n-- writes: b\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT x FROM a;\n")
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != Table || st.Writes != "b" || strings.Join(st.Reads, " ") != "a client" || st.Query != "SELECT x FROM a" ||
		!strings.HasPrefix(st.SQL, "-- b: a table.") || strings.HasSuffix(st.SQL, ";") {
		t.Errorf("table step: %+v", st)
	}
	st, err = parseStep("p/030_v_u.sql", "v_u", "-- reads: v_h, v_drop\n-- writes: v_u\n{{template \"tier_u\" (dict \"T\" \"v\")}};\n")
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != View || st.Query != "SELECT * EXCLUDE (h) FROM v_h ANTI JOIN v_drop USING (rid)" {
		t.Errorf("view step from a template: %+v", st)
	}
	st, err = parseStep("p/090_out.sql", "out", "-- reads: b\n-- writes: out.parquet\nWITH\nc AS (\n    SELECT 1 -- a comment;\n)\nSELECT * FROM c;\n")
	if err != nil {
		t.Fatal(err)
	}
	if st.Kind != Output || st.Writes != "out.parquet" || !strings.HasPrefix(st.Query, "WITH\nc AS") {
		t.Errorf("output step: %+v", st)
	}
	for text, want := range map[string]string{
		"-- writes: b\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1":                           `p/020_b.sql:2: the header has no line "-- reads: …"`,
		"-- reads: a\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1":                            `p/020_b.sql:2: the header has no line "-- writes: …"`,
		"-- reads: a\n-- reads: a\n-- writes: b\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1": "p/020_b.sql:2: a second reads line",
		"-- reads: a b\n-- writes: b\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1":            `p/020_b.sql:1: reads "a b", not a table or view name`,
		"-- reads: a\n-- writes: b, c\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1":           `p/020_b.sql:2: writes "b, c", not one table or view name`,
		"-- reads: a\n-- writes: c\nCREATE OR REPLACE TEMP TABLE c AS\nSELECT 1":              "p/020_b.sql:2: writes c, but the file is named after b",
		"-- reads: a\n-- writes: b\nCREATE OR REPLACE TEMP TABLE c AS\nSELECT 1":              `p/020_b.sql:3: the statement is neither "CREATE OR REPLACE TEMP TABLE b AS"`,
		"-- reads: a\n-- writes: b\nCREATE TEMP TABLE b AS SELECT 1":                          `p/020_b.sql:3: the statement is neither`,
		"-- reads: a\n-- writes: b\nCREATE OR REPLACE TEMP TABLE b AS\nSELECT 1;\nSELECT 2":   "p/020_b.sql: more than one statement",
		"-- reads: a\n-- writes: b\n{{template \"no_such\" .}}":                               `p/020_b.sql: template: p/020_b.sql:3:11: executing "p/020_b.sql" at <{{template "no_such" .}}>: template "no_such" not defined`,
	} {
		_, err := parseStep("p/020_b.sql", "b", text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

// CheckSteps: each step reads only inputs and earlier steps' writes, each
// name is written once and read later, and the output is the last step.
func TestCheckSteps(t *testing.T) {
	t.Parallel()
	good := func() []Step {
		return []Step{
			{File: "010_a.sql", Writes: "a", Reads: []string{"client"}, Kind: Table},
			{File: "020_v.sql", Writes: "v", Reads: []string{"a"}, Kind: View},
			{File: "030_b.sql", Writes: "b", Reads: []string{"a", "v"}, Kind: Table},
			{File: "040_out.sql", Writes: "out.parquet", Reads: []string{"b"}, Kind: Output},
		}
	}
	if err := CheckSteps(good(), "client", "server"); err != nil {
		t.Fatal(err)
	}
	for want, change := range map[string]func(s []Step) []Step{
		"010_a.sql reads client, which no earlier step writes and which is none of the views server": func(s []Step) []Step {
			return s
		},
		"030_b.sql reads c, which no earlier step writes": func(s []Step) []Step {
			s[2].Reads = append(s[2].Reads, "c")
			return s
		},
		"020_v.sql reads b, which no earlier step writes": func(s []Step) []Step {
			s[1].Reads = []string{"b"}
			return s
		},
		"030_b.sql writes a, which 010_a.sql writes already": func(s []Step) []Step {
			s[2].Writes = "a"
			return s
		},
		"010_a.sql writes server, which an input view writes already": func(s []Step) []Step {
			s[0].Writes = "server"
			return s
		},
		"020_v.sql writes v, which no later step reads": func(s []Step) []Step {
			s[2].Reads = []string{"a"}
			return s
		},
		"030_b.sql: the last step, and only it, is the query of the output": func(s []Step) []Step {
			s[2].Kind = Output
			return s
		},
		"040_out.sql: the last step, and only it, is the query of the output": func(s []Step) []Step {
			s[3].Kind = Table
			return s
		},
	} {
		inputs := []string{"client", "server"}
		if strings.HasPrefix(want, "010_a.sql reads client") {
			inputs = []string{"server"}
		}
		err := CheckSteps(change(good()), inputs...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

// OneStatement: tables are MATERIALIZED CTEs, views NOT MATERIALIZED ones,
// and the output's own CTEs join the list.
func TestOneStatement(t *testing.T) {
	t.Parallel()
	steps := []Step{
		{Writes: "a", Kind: Table, Query: "SELECT 1 AS x"},
		{Writes: "v", Kind: View, Query: "SELECT x FROM a"},
		{Writes: "out.parquet", Kind: Output, Query: "WITH\nc AS (\n    SELECT x FROM v\n)\nSELECT * FROM c"},
	}
	want := "WITH\na AS MATERIALIZED (\nSELECT 1 AS x\n),\nv AS NOT MATERIALIZED (\nSELECT x FROM a\n),\nc AS (\n    SELECT x FROM v\n)\nSELECT * FROM c"
	if got := OneStatement(steps); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	steps[2].Query = "SELECT * FROM v"
	want = "WITH\na AS MATERIALIZED (\nSELECT 1 AS x\n),\nv AS NOT MATERIALIZED (\nSELECT x FROM a\n),\noutput AS (\nSELECT * FROM v\n)\nSELECT * FROM output"
	if got := OneStatement(steps); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The requests steps all parse, and every file in queries/requests/ is one.
func TestRequestsSteps(t *testing.T) {
	t.Parallel()
	steps := mustSteps(t)
	entries, err := files.ReadDir("requests")
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != len(entries) || len(steps) < 50 {
		t.Errorf("%d steps of %d files", len(steps), len(entries))
	}
	if _, err := Steps("no_such"); err == nil {
		t.Error("Steps of no pipeline: no error")
	}
}

// FuzzParseStep: parseStep never panics, and a step it accepts holds what
// its header and statement say: a table or view step's SQL creates what
// it writes, from its query; the output's query is a SELECT or WITH. The
// seeds are the requests steps. (Template actions are text/template's to
// parse and are left out.)
func FuzzParseStep(f *testing.F) {
	entries, err := files.ReadDir("requests")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		b, err := files.ReadFile("requests/" + e.Name())
		if err != nil {
			f.Fatal(err)
		}
		f.Add("b", string(b))
	}
	f.Add("b", "-- reads: a\n-- writes: b\nCREATE OR REPLACE TEMP VIEW b AS\nSELECT 1")
	f.Fuzz(func(t *testing.T, name, text string) {
		if strings.Contains(text, "{{") {
			return
		}
		st, err := parseStep("p/010_"+name+".sql", name, text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "queries: p/010_"+name+".sql") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if strings.SplitN(st.Writes, ".", 2)[0] != name || st.Query == "" {
			t.Errorf("accepted %+v", st)
		}
		switch st.Kind {
		case Table, View:
			what := map[StepKind]string{Table: "TABLE", View: "VIEW"}[st.Kind]
			if !strings.HasSuffix(st.SQL, "CREATE OR REPLACE TEMP "+what+" "+st.Writes+" AS\n"+st.Query) {
				t.Errorf("%s step %s: SQL %q does not create it from its query %q", what, st.Writes, st.SQL, st.Query)
			}
		case Output:
			if !strings.HasPrefix(st.Query, "SELECT") && !strings.HasPrefix(st.Query, "WITH") {
				t.Errorf("output query %q", st.Query)
			}
		default:
			t.Errorf("kind %d", st.Kind)
		}
	})
}
