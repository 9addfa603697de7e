package ingest

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealTGIText: TGI's text lines of Datadog's log pipeline tests
// (testdata/real/tgi) give two rows, with the figures worked out by hand:
//   - the generate_stream Success at 2025-09-09T11:29:51.795563Z =
//     1757417391795563000 ns (End): total_time 1.194364886 s → Arrival
//     1757417390601198114; + validation 204.821 µs + queue 53.525 µs →
//     Scheduled 1757417390601456460; inference 1,194,106,715 ns; output
//     tokens round(1194106715 / 59705335) = round(20.00000025) = 20, its
//     max_new_tokens Some(20).
//   - the chat_completions ERROR at 11:28:03.840209Z = 1757417283840209000
//     ns, whose span quotes its parameters: a row with the end and the
//     error (numbers and quoted names redacted), no durations.
//
// The 60 other lines (a WARN, the launcher's download line and its Args
// banner) give no row and no reject, and no parameter text reaches a row.
func TestRealTGIText(t *testing.T) {
	t.Parallel()
	got := readRows(t, Server, filepath.Join("..", "testdata", "real", "tgi", "datadog_tgi_log_samples.log"), t.TempDir(), "tgi")
	if len(got.rows) != 2 || got.stats.Rejected != 0 || got.stats.Lines != 62 || got.stats.Format != "tgi-text" {
		t.Fatalf("%d rows, %+v; want 2 rows of 62 tgi-text lines, no reject", len(got.rows), got.stats)
	}
	var ok, failed ServerRow
	for i, r := range []*ServerRow{&ok, &failed} {
		if err := json.Unmarshal([]byte(got.rows[i].json), r); err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"GenerateParameters", "do_sample", "OpenHermes", "max_new_tokens"} {
			if strings.Contains(got.rows[i].json, secret) {
				t.Errorf("row %d holds %q: %s", i, secret, got.rows[i].json)
			}
		}
	}
	for name, c := range map[string]struct{ got, want any }{
		"end":            {ok.End, int64(1757417391795563000)},
		"E2E (ns)":       {deref(ok.E2ENS), int64(1194364886)},
		"arrival":        {ok.Arrival, int64(1757417390601198114)},
		"scheduled":      {ok.Scheduled, int64(1757417390601456460)},
		"queue (ns)":     {deref(ok.QueueNS), int64(53525)},
		"inference (ns)": {deref(ok.InferenceNS), int64(1194106715)},
		"output tokens":  {deref(ok.OutputTokens), int32(20)},
		"error":          {ok.Error, ""},
		"failed end":     {failed.End, int64(1757417283840209000)},
		"failed error":   {failed.Error, "<quoted> tokens + <quoted> must be <= <n>. Given: <n> <quoted> tokens and <n> …"},
		"failed E2E":     {failed.E2ENS == nil && failed.Arrival == 0 && failed.OutputTokens == nil, true},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
}
