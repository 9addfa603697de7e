package scan

// EachMember calls fn for the members of a nested object value; anything
// that is not an object is skipped (a log may write null or "" for an empty
// object).
func EachMember(v Value, fn func(key []byte, v Value) error) error {
	if v.Kind != ObjectKind {
		return nil
	}
	return Object(v.Raw, func(k []byte, esc bool, v Value) error {
		return fn(MemberKey(k, esc), v)
	})
}

// EachElement calls fn for the elements of an array value, skipping
// anything that is not an array.
func EachElement(v Value, fn func(v Value) error) error {
	if v.Kind != Array {
		return nil
	}
	return Elements("", v, func(_ int, e Value) error { return fn(e) })
}
