package record

import (
	"errors"
	"testing"
)

// TestSniffAccessLogHint: an unrecognised file of HTTP request lines is
// told as an access log only when formats declare that they read access
// logs in a format string of the user's, and then names those formats (in
// their AccessLogHint order) with their flags; the registry names none by
// itself.
func TestSniffAccessLogHint(t *testing.T) {
	t.Parallel()
	saved := registry
	t.Cleanup(func() { registry = saved })
	lines := [][]byte{[]byte(`10.0.0.1 - - [15/Jan/2026:10:00:02 +0000] "POST /v1/chat/completions HTTP/1.1" 200 12`)}

	registry = map[Tier][]*Format{}
	Register(&Format{Tier: Gateway, Name: "plain"})
	_, err := Sniff(Gateway, "a.log", lines, nil)
	want := "unknown format: cannot tell the gateway format from the first lines " +
		"(no known format decodes them; known: plain); name it with --gateway FORMAT:a.log"
	if !errors.Is(err, ErrUnknownFormat) || err.Error() != want {
		t.Errorf("no access-log format: error\n%v\nwant\n%s", err, want)
	}

	Register(&Format{Tier: Gateway, Name: "second", AccessLogHint: &AccessLogHint{Flag: "--second-format", Rank: 2}})
	Register(&Format{Tier: Gateway, Name: "first", AccessLogHint: &AccessLogHint{Flag: "--first-format", Rank: 1}})
	Register(&Format{Tier: Server, Name: "other", AccessLogHint: &AccessLogHint{Flag: "--other-format", Rank: 0}})
	_, err = Sniff(Gateway, "a b.log", lines, nil)
	want = "unknown format: cannot tell the gateway format from the first lines " +
		"(an access log in a format of its own: closest first or second, given the format string); " +
		"name it with --gateway first:'a b.log' --first-format '…' (or second with --second-format)"
	if !errors.Is(err, ErrUnknownFormat) || err.Error() != want {
		t.Errorf("two access-log formats: error\n%v\nwant\n%s", err, want)
	}

	_, err = Sniff(Gateway, "a.log", [][]byte{[]byte("ts,request_id")}, nil)
	if err == nil || err.Error() != "unknown format: cannot tell the gateway format from the first lines "+
		"(no known format decodes them; known: first, plain, second); name it with --gateway FORMAT:a.log" {
		t.Errorf("not an access log: error %v", err)
	}
}
