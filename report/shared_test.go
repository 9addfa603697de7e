package report

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// Fixtures that several tests read are built once per test binary: an
// analysis costs seconds of DuckDB work, a copy of it microseconds. Each
// test gets a copy of its own (a deep copy of a Result, a copy of a
// store's files), so none can see what another changed.

// TestMain removes the shared fixtures and stops the shared browser.
func TestMain(m *testing.M) {
	code := m.Run()
	stopBrowser()
	sharedStores.Range(func(_, v any) bool {
		if s := v.(*sharedStore); s.root != "" {
			os.RemoveAll(s.root)
		}
		return true
	})
	os.Exit(code)
}

type sharedResultEntry struct {
	once sync.Once
	res  *analyze.Result
	err  error
}

var sharedResults sync.Map // name -> *sharedResultEntry

// sharedResult returns a deep copy of the Result build gives, build being
// called once per name for the whole test binary.
func sharedResult(t *testing.T, name string, build func() (*analyze.Result, error)) *analyze.Result {
	t.Helper()
	v, _ := sharedResults.LoadOrStore(name, &sharedResultEntry{})
	e := v.(*sharedResultEntry)
	e.once.Do(func() {
		e.err = fmt.Errorf("the test that built it stopped")
		e.res, e.err = build()
	})
	if e.err != nil {
		t.Fatalf("%s: %v", name, e.err)
	}
	return deepCopy(reflect.ValueOf(e.res)).Interface().(*analyze.Result)
}

type sharedStore struct {
	once sync.Once
	root string // the temporary directory, removed by TestMain
	dir  string
	err  error
}

var sharedStores sync.Map // name -> *sharedStore

// sharedDir returns a copy, in the test's own temporary directory, of the
// store build writes into the directory it is given, build being called
// once per name for the whole test binary.
func sharedDir(t *testing.T, name string, build func(dir string) error) string {
	t.Helper()
	v, _ := sharedStores.LoadOrStore(name, &sharedStore{})
	s := v.(*sharedStore)
	s.once.Do(func() {
		s.err = fmt.Errorf("the test that built it stopped")
		if s.root, s.err = os.MkdirTemp("", "infertrace-report-"); s.err == nil {
			s.dir = filepath.Join(s.root, "out")
			s.err = build(s.dir)
		}
	})
	if s.err != nil {
		t.Fatalf("%s: %v", name, s.err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(dir, os.DirFS(s.dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// deepCopy copies v and everything it points to: pointers, slices, maps
// and interfaces are new, so nothing is shared with v. A struct with
// unexported fields (time.Time) is copied as a value, its exported fields
// deeply.
func deepCopy(v reflect.Value) reflect.Value {
	out := reflect.New(v.Type()).Elem()
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			p := reflect.New(v.Type().Elem())
			p.Elem().Set(deepCopy(v.Elem()))
			out.Set(p)
		}
	case reflect.Slice:
		if !v.IsNil() {
			s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				s.Index(i).Set(deepCopy(v.Index(i)))
			}
			out.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
	case reflect.Map:
		if !v.IsNil() {
			m := reflect.MakeMapWithSize(v.Type(), v.Len())
			for it := v.MapRange(); it.Next(); {
				m.SetMapIndex(deepCopy(it.Key()), deepCopy(it.Value()))
			}
			out.Set(m)
		}
	case reflect.Interface:
		if !v.IsNil() {
			out.Set(deepCopy(v.Elem()))
		}
	case reflect.Struct:
		out.Set(v)
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
	default:
		out.Set(v)
	}
	return out
}

// The copy equals the original and shares no pointer, slice or map with it.
func TestDeepCopy(t *testing.T) {
	t.Parallel()
	res := standardResult(t)
	cp := deepCopy(reflect.ValueOf(res)).Interface().(*analyze.Result)
	if !reflect.DeepEqual(res, cp) {
		t.Fatal("the copy differs from the original")
	}
	if len(res.Slices) == 0 || &res.Slices[0] == &cp.Slices[0] {
		t.Fatalf("the copy shares its slices (%d)", len(res.Slices))
	}
	cp.Slices[0].Label += " changed"
	if res.Slices[0].Label == cp.Slices[0].Label {
		t.Error("changing the copy changed the original")
	}
	if res.Slices[0].ClientE2E.P50 != nil && res.Slices[0].ClientE2E.P50 == cp.Slices[0].ClientE2E.P50 {
		t.Error("the copy shares a pointer")
	}
}
