package scan

import "bytes"

// URLLabel returns a URL, a request target or a host[:port] without the
// parts that carry secrets: the query and the fragment ("/v1/chat?api_key=…",
// "http://10.0.0.1:8000/?token=…") and the user and password of an
// authority ("http://user:pass@host/"). Route and upstream columns, of
// every format, hold only what it returns. It returns b itself (no copy)
// when there is no user and password.
func URLLabel(b []byte) []byte {
	if i := bytes.IndexAny(b, "?#"); i >= 0 {
		b = b[:i]
	}
	at := bytes.IndexByte(b, '@')
	if at < 0 {
		return b
	}
	// The authority starts after "scheme://" or "//", or at the start of a
	// bare host; it ends at the first '/' after that.
	start := 0
	if s := bytes.Index(b, []byte("//")); s >= 0 && s < at {
		start = s + 2
	}
	end := len(b)
	if e := bytes.IndexByte(b[start:], '/'); e >= 0 {
		end = start + e
	}
	if at < start || at >= end {
		return b // an '@' in the path ("/v1/models/@latest")
	}
	at = start + bytes.LastIndexByte(b[start:end], '@')
	return append(append(bytes.Clone(b[:start]), b[at+1:end]...), b[end:]...)
}

// URLLabel is Label for a route or an upstream: the value as URLLabel
// leaves it.
func (s *Labels) URLLabel(field string, v Value, dst *string) error {
	if v.Kind == String && !v.Escaped && !bytes.ContainsAny(v.Raw, "?#@") {
		if l, ok := s.known(v.Raw); ok {
			*dst = l
			return nil
		}
	}
	b, ok, err := TextBytes(field, v)
	if ok {
		if b = URLLabel(b); len(b) > 0 {
			*dst = s.Intern(b)
		}
	}
	return err
}
