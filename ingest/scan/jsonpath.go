package ingest

// eachMember calls fn for the members of a nested object value; anything
// that is not an object is skipped (a log may write null or "" for an empty
// object).
func eachMember(v jsonValue, fn func(key []byte, v jsonValue) error) error {
	if v.kind != jsonObjectKind {
		return nil
	}
	return jsonObject(v.raw, func(k []byte, esc bool, v jsonValue) error {
		return fn(memberKey(k, esc), v)
	})
}

// eachElement calls fn for the elements of an array value, skipping
// anything that is not an array.
func eachElement(v jsonValue, fn func(v jsonValue) error) error {
	if v.kind != jsonArray {
		return nil
	}
	return lgElements("", v, func(_ int, e jsonValue) error { return fn(e) })
}
