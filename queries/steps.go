package queries

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// A Step is one statement of a pipeline: a directory of .sql files, one
// per step, run in the order of their names (queries/requests/ is the
// one analyze runs). A step file starts with a header of comments that
// declares what the step reads and what it writes:
//
//	-- client_miss: the client records whose request ID is no key.
//	--
//	-- reads: client_m, join_keys
//	-- writes: client_miss
//	CREATE OR REPLACE TEMP TABLE client_miss AS
//	SELECT …;
//
// and holds one statement (templates of the *.sql.tmpl files expanded):
// CREATE OR REPLACE TEMP TABLE name AS …, CREATE OR REPLACE TEMP VIEW
// name AS …, or, for the last step, the query whose rows are the
// pipeline's output, which its caller writes (writes names the output).
// The file is named NNN_name.sql after what it writes.
type Step struct {
	// File is the step's file, "requests/360_client_miss.sql".
	File string
	// Reads are the tables and views the statement reads, as the header
	// declares them: those of earlier steps, or views its caller
	// registers.
	Reads []string
	// Writes is the table or view the statement creates, or the name of
	// the output for the Output step.
	Writes string
	// Kind says what the statement creates.
	Kind StepKind
	// SQL is the statement, with its comments.
	SQL string
	// Query is the query the statement makes its table or view of (the
	// whole statement for the Output step).
	Query string
}

// A StepKind says what a Step creates.
type StepKind int

const (
	// Table is a step that creates a temporary table.
	Table StepKind = iota
	// View is a step that creates a temporary view: a name for a query
	// that the steps which read it inline (as a NOT MATERIALIZED CTE).
	View
	// Output is the last step: a query whose rows are the output.
	Output
)

// stepFile is the name of a step's file: a number, then what it writes.
var stepFile = regexp.MustCompile(`^[0-9]{3}_([a-z_][a-z0-9_]*)\.sql$`)

// stepName is a table or view name a header may declare.
var stepName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(\.[a-z]+)?$`)

// Steps returns the steps of the pipeline in dir ("requests"), in the
// order of their file names, with their headers read and their templates
// expanded. A file that breaks the layout above is an error naming it and
// the line at fault.
func Steps(dir string) ([]Step, error) {
	entries, err := fs.ReadDir(files, dir)
	if err != nil {
		return nil, fmt.Errorf("queries: no pipeline %q", dir)
	}
	var steps []Step
	for _, e := range entries {
		file := path.Join(dir, e.Name())
		m := stepFile.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			return nil, fmt.Errorf("queries: %s: a step's file is named NNN_name.sql", file)
		}
		b, err := files.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("queries: %w", err)
		}
		st, err := parseStep(file, m[1], string(b))
		if err != nil {
			return nil, err
		}
		steps = append(steps, st)
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("queries: pipeline %q has no steps", dir)
	}
	return steps, nil
}

// parseStep reads the step of file, named name, from its text.
func parseStep(file, name, text string) (Step, error) {
	st := Step{File: file}
	lines := strings.Split(text, "\n")
	reads, writes := -1, -1
	code := len(lines) // the header ends at the first line that is no comment
	for i, l := range lines {
		if !strings.HasPrefix(l, "--") {
			code = i
			break
		}
		if rest, ok := strings.CutPrefix(l, "-- reads:"); ok {
			if reads >= 0 {
				return st, fmt.Errorf("queries: %s:%d: a second reads line", file, i+1)
			}
			reads = i
			for _, r := range strings.Split(rest, ",") {
				if r = strings.TrimSpace(r); r == "" {
					continue
				}
				if !stepName.MatchString(r) {
					return st, fmt.Errorf("queries: %s:%d: reads %q, not a table or view name", file, i+1, r)
				}
				st.Reads = append(st.Reads, r)
			}
		}
		if rest, ok := strings.CutPrefix(l, "-- writes:"); ok {
			if writes >= 0 {
				return st, fmt.Errorf("queries: %s:%d: a second writes line", file, i+1)
			}
			writes = i
			st.Writes = strings.TrimSpace(rest)
			if !stepName.MatchString(st.Writes) {
				return st, fmt.Errorf("queries: %s:%d: writes %q, not one table or view name", file, i+1, st.Writes)
			}
		}
	}
	switch {
	case reads < 0:
		return st, fmt.Errorf("queries: %s:%d: the header has no line \"-- reads: …\"", file, code+1)
	case writes < 0:
		return st, fmt.Errorf("queries: %s:%d: the header has no line \"-- writes: …\"", file, code+1)
	case strings.SplitN(st.Writes, ".", 2)[0] != name:
		return st, fmt.Errorf("queries: %s:%d: writes %s, but the file is named after %s", file, writes+1, st.Writes, name)
	}
	sql, err := expand(file, text)
	if err != nil {
		return st, err
	}
	st.SQL = strings.TrimSuffix(strings.TrimSpace(sql), ";")
	// The statement: from its first line that is neither a comment nor
	// blank (a template's block may begin with comments of its own).
	body := st.SQL
	for body != "" {
		l, rest, _ := strings.Cut(body, "\n")
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "--") {
			break
		}
		body = rest
	}
	for _, l := range strings.Split(body, "\n") {
		if code, _, _ := strings.Cut(l, "--"); strings.HasSuffix(strings.TrimSpace(code), ";") {
			return st, fmt.Errorf("queries: %s: more than one statement (a line ends with ;)", file)
		}
	}
	for kind, what := range map[StepKind]string{Table: "TABLE", View: "VIEW"} {
		if q, ok := strings.CutPrefix(body, "CREATE OR REPLACE TEMP "+what+" "+st.Writes+" AS\n"); ok {
			st.Kind, st.Query = kind, q
			return st, nil
		}
	}
	if strings.HasPrefix(body, "CREATE") || !(strings.HasPrefix(body, "SELECT") || strings.HasPrefix(body, "WITH")) {
		return st, fmt.Errorf("queries: %s:%d: the statement is neither \"CREATE OR REPLACE TEMP TABLE %s AS\" nor \"… VIEW %[3]s AS\" on a line of its own, nor a query (SELECT or WITH) giving the output",
			file, code+1, st.Writes)
	}
	st.Kind, st.Query = Output, body
	return st, nil
}

// CheckSteps checks that steps form a pipeline over inputs (the views its
// caller registers): each step reads only inputs and what earlier steps
// write, writes a name no other step writes, and what it writes is read
// by a later step; the last step, and only it, is the Output.
func CheckSteps(steps []Step, inputs ...string) error {
	by := map[string]string{} // name -> the file that writes it ("" for an input)
	for _, in := range inputs {
		by[in] = ""
	}
	read := map[string]bool{}
	for k, st := range steps {
		for _, r := range st.Reads {
			if _, ok := by[r]; !ok {
				return fmt.Errorf("queries: %s reads %s, which no earlier step writes and which is none of the views %s", st.File, r, strings.Join(inputs, ", "))
			}
			read[r] = true
		}
		if f, ok := by[st.Writes]; ok {
			if f == "" {
				f = "an input view"
			}
			return fmt.Errorf("queries: %s writes %s, which %s writes already", st.File, st.Writes, f)
		}
		by[st.Writes] = st.File
		if (st.Kind == Output) != (k == len(steps)-1) {
			return fmt.Errorf("queries: %s: the last step, and only it, is the query of the output", st.File)
		}
	}
	for _, st := range steps[:len(steps)-1] {
		if !read[st.Writes] {
			return fmt.Errorf("queries: %s writes %s, which no later step reads", st.File, st.Writes)
		}
	}
	return nil
}

// OneStatement returns steps as one query: each step's table a
// MATERIALIZED CTE and each view a NOT MATERIALIZED one, in order, then
// the Output's query (its CTEs joined to the list). It gives the rows the
// steps give when run one by one, and lets a test run the pipeline, or a
// changed copy of it, as one statement.
func OneStatement(steps []Step) string {
	var b strings.Builder
	b.WriteString("WITH\n")
	for _, st := range steps[:len(steps)-1] {
		how := "MATERIALIZED"
		if st.Kind == View {
			how = "NOT MATERIALIZED"
		}
		fmt.Fprintf(&b, "%s AS %s (\n%s\n),\n", st.Writes, how, st.Query)
	}
	out := steps[len(steps)-1].Query
	if rest, ok := strings.CutPrefix(out, "WITH\n"); ok {
		b.WriteString(rest)
	} else {
		// the list needs a CTE after its last comma
		fmt.Fprintf(&b, "output AS (\n%s\n)\nSELECT * FROM output", out)
	}
	return b.String()
}
