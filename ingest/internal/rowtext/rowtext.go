// Package rowtext renders rows as text for the ingest tests: one line per
// row, its source first, NULL columns left out, times in RFC 3339, as the
// want/client, want/gateway and want/server sections of the txtar cases in
// testdata/ingest hold them.
package rowtext

import (
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/infertrace/infertrace/ingest/record"
)

// Table reads a tier's parts back and renders one line per row, sorted
// by source, with NULL columns left out and times in RFC 3339.
func Table[T record.Row](t testing.TB, out string, tier record.Tier, strip string) string {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(out, string(tier), "*", "*.parquet"))
	var rows []T
	for _, p := range parts {
		rs, err := parquet.ReadFile[T](p)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	lines := make([]string, 0, len(rows))
	for i := range rows {
		lines = append(lines, Render(&rows[i], strip))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Render renders the row *row on one line, file names without the prefix
// strip.
func Render(row any, strip string) string {
	v := reflect.ValueOf(row).Elem()
	var b strings.Builder
	var src string
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		tag := f.Tag.Get("parquet")
		if tag == "" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		} else if fv.IsZero() && strings.Contains(opts, "optional") {
			continue
		}
		var s string
		switch {
		case strings.Contains(opts, "timestamp"):
			s = time.Unix(0, fv.Int()).UTC().Format(time.RFC3339Nano)
		case fv.Kind() == reflect.String:
			s = strings.TrimPrefix(fv.String(), strip+string(filepath.Separator))
		default:
			s = fmt.Sprint(fv.Interface())
		}
		if name == "source_file" {
			src = s
			continue
		}
		if name == "source_line" {
			src += ":" + s
			continue
		}
		fmt.Fprintf(&b, " %s=%s", name, s)
	}
	return src + b.String()
}
