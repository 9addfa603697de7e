package record

import "testing"

// TestShortReason: a reason quotes numbers and times (cut), and only the
// shape of any other value: a credential or a prompt in a field that
// wanted a number must not be copied into rejects.jsonl or onto stderr.
func TestShortReason(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`prompt_tokens: bad value: want a whole number, got "Bearer sk-proj-a1b2c3d4e5f6g7h8i9j0k1l2m3n4"`: `prompt_tokens: bad value: want a whole number, got a string of 43 letters, digits, spaces and punctuation`,
		`start: bad time: "2026-11-30 10:00:00.250": not in the layout "2006-01-02T15:04:05Z07:00"`:        `start: bad time: "2026-11-30 10:00:00.250": not in the layout "2006-01-02T15:04:05Z07:00"`,
		`status: bad value: "-5": negative; "12ms" "15/Jan/2026:10:00:02 +0000"`:                           `status: bad value: "-5": negative; "12ms" "15/Jan/2026:10:00:02 +0000"`,
		`x: "hunter2" "a" "" "é\t1" "` + "1234567890123456789012345678901234567890" + `"`:                  `x: a string of 7 letters and digits a string of 1 letter an empty string a string of 3 digits, spaces and other characters "12345678901234567890123456789012…"`,
		`unit: "1 ms; token=abc"`: `unit: a string of 15 letters, digits, spaces and punctuation`,
	} {
		if got := ShortReason(in); got != want {
			t.Errorf("ShortReason(%s):\n got %s\nwant %s", in, got, want)
		}
	}
}
