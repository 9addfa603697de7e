package queries

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.sql
var files embed.FS

// Get returns the text of the query stored in name+".sql".
func Get(name string) (string, error) {
	b, err := files.ReadFile(name + ".sql")
	if err != nil {
		return "", fmt.Errorf("queries: no query named %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	return string(b), nil
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
