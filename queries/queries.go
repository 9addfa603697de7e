package queries

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"text/template"
)

//go:embed *.sql *.sql.tmpl requests/*.sql
var files embed.FS

// Get returns the text of the query stored in name+".sql", with the
// blocks it takes from the *.sql.tmpl files expanded (a query that holds
// "{{" is a Go text/template; see tier.sql.tmpl).
func Get(name string) (string, error) {
	b, err := files.ReadFile(name + ".sql")
	if err != nil {
		return "", fmt.Errorf("queries: no query named %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	return expand(name+".sql", string(b))
}

// expand returns text, the query of file, with the blocks it takes from the
// *.sql.tmpl files expanded (a query that holds "{{" is a Go text/template;
// see tier.sql.tmpl).
func expand(file, text string) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	t, err := template.New(file).Option("missingkey=error").Funcs(template.FuncMap{"dict": dict}).ParseFS(files, "*.sql.tmpl")
	if err == nil {
		t, err = t.Parse(text)
	}
	var out strings.Builder
	if err == nil {
		err = t.Execute(&out, nil)
	}
	if err != nil {
		return "", fmt.Errorf("queries: %s: %w", file, err)
	}
	return out.String(), nil
}

// dict makes a template's argument from its name and value pairs.
func dict(kv ...string) (map[string]string, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict: an odd number of arguments")
	}
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m, nil
}

// MustGet is Get for queries that are known to exist; it panics otherwise.
func MustGet(name string) string {
	q, err := Get(name)
	if err != nil {
		panic(err)
	}
	return q
}

// Names lists the embedded query names in sorted order.
func Names() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".sql"); ok && !e.IsDir() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
