package duck

import (
	"fmt"
	"math/big"
	"time"

	"github.com/infertrace/infertrace/internal/textsafe"
)

// Conversions from the values database/sql yields for DuckDB columns.

// Int reads an integer column (0 when NULL or not a number).
func Int(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint64:
		return int64(x)
	case float64:
		return int64(x)
	case *big.Int:
		return x.Int64()
	}
	return 0
}

// Float reads a numeric column, nil when NULL.
func Float(v any) *float64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case int64:
		f = float64(x)
	case int32:
		f = float64(x)
	case *big.Int:
		f, _ = new(big.Float).SetInt(x).Float64()
	default:
		return nil
	}
	return &f
}

// String reads a text column. Text comes from the logs (a model, a
// replica, a file name), so it is cut to textsafe.LabelMax runes and its
// control characters escaped here, once, before any finding quotes it:
// grouping in SQL still sees the whole value.
func String(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return textsafe.Label(x)
	case []byte:
		return textsafe.Label(string(x))
	}
	return textsafe.Label(fmt.Sprint(v))
}

// Time reads a timestamp column in UTC, nil when NULL.
func Time(v any) *time.Time {
	if t, ok := v.(time.Time); ok {
		u := t.UTC()
		return &u
	}
	return nil
}

// List reads a LIST column.
func List(v any) []any {
	l, _ := v.([]any)
	return l
}

// Quantiles turns a quantile_cont list into pointers, nil where absent.
func Quantiles(v any, n int) []*float64 {
	l := List(v)
	out := make([]*float64, n)
	for i := 0; i < n && i < len(l); i++ {
		out[i] = Float(l[i])
	}
	return out
}
