package scan

import "github.com/infertrace/infertrace/ingest/record"

// Elements walks a member that must be an array (or null).
func Elements(field string, v Value, fn func(i int, v Value) error) error {
	switch v.Kind {
	case Null:
		return nil
	case Array:
	default:
		return record.FieldErrorf(field, record.ErrBadValue, "want an array, got %s", KindName(v.Kind))
	}
	data := v.Raw
	i := SkipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for n := 0; ; n++ {
		e, next, err := ValueAt(data, i)
		if err != nil {
			return err
		}
		if err := fn(n, e); err != nil {
			return err
		}
		i = SkipSpace(data, next)
		if i >= len(data) {
			return SyntaxErr(i, ErrUnexpectedEnd.Error())
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case ']':
			return nil
		default:
			return SyntaxErr(i, "expected ',' or ']' after array element")
		}
	}
}
