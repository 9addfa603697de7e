// Package scan reads the values of log records without building them: a
// JSON scanner that walks the members of an object and hands each over as
// raw bytes (Object, Value, Unquote, EachMember, EachElement), and the
// parsers that convert one value in place into a row column — times
// (RFC 3339, epoch seconds, ParseTimeText), decimals scaled to integers
// (ParseScaled, Duration), Rust Duration Debug strings (RustDurationField),
// counts, HTTP statuses, booleans, and interned labels (Labels, IDArena).
//
//	err := scan.Object(line, func(k []byte, esc bool, v scan.Value) error {
//		switch string(scan.MemberKey(k, esc)) {
//		case "start":
//			return scan.Timestamp("start", v, &row.Start)
//		case "model":
//			return labels.Label("model", v, &row.Model)
//		}
//		return nil // any other member is skipped unread
//	})
//
// A value that does not convert is a *record.FieldError naming the member,
// wrapping record.ErrBadValue or record.ErrBadTime; malformed JSON wraps
// record.ErrSyntax. The readers of ingest/formats use scan, and the
// pipeline uses it to redact rejected lines; scan imports only
// ingest/record.
package scan
