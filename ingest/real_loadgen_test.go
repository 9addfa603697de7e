package ingest

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// realLLMPerfRows reads a real LLMPerf sample (testdata/real/llmperf),
// sniffed, into its client rows in file order.
func realLLMPerfRows(t *testing.T, file string) ([]ClientRow, []string) {
	t.Helper()
	in := Input{Tier: Client, Pattern: filepath.Join("..", "testdata", "real", "llmperf", file)}
	got := readInput(t, in, nil, t.TempDir(), "llmperf")
	if got.stats.Rejected != 0 || got.stats.Error != "" || got.stats.Format != "llmperf" {
		t.Fatalf("%s: %+v", file, got.stats)
	}
	rows := make([]ClientRow, len(got.rows))
	texts := make([]string, len(got.rows))
	for i, r := range got.rows {
		if err := json.Unmarshal([]byte(r.json), &rows[i]); err != nil {
			t.Fatal(err)
		}
		texts[i] = r.json
	}
	return rows, texts
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestRealLLMPerf: the LLMPerf leaderboard's files give one row per
// request, with the figures worked out by hand from their JSON:
//   - groq_70b.json, its first record: ttft_s 0.297977801412344 →
//     297,977,801 ns (.412 ns rounds down), end_to_end_latency_s
//     0.8900090400129557 → 890,009,040 ns, 550 prompt and 150 output
//     tokens, inter_token_latency_s a number (not a list): not streamed;
//     no times and no request ID (LLMPerf keeps neither); 150 rows.
//   - perplexity_70b.json: 148 successes and 2 rows of status 429 whose
//     Error is the type of the provider's error body,
//     token_rate_limit_exceeded (not the body, nor its message), with 550
//     prompt tokens and no durations or output tokens.
//   - together_13b.json: one error_code -1 (no response): no status,
//     Error "error -1" (stored with its number redacted: "error -<n>").
//   - bedrock_13b.json: 97 of LLMPerf's -100 "Output too few tokens N"
//     (the first N = 39, stored as "Output too few tokens <n>"): no status
//     (-100 is not HTTP), and none of their GEN_TEXT (the generated text)
//     in any row.
//   - lepton_7b.json: 20 successes and 130 rows of status 429 with an
//     empty error_msg: Error "error 429" (stored as "error <n>").
func TestRealLLMPerf(t *testing.T) {
	t.Parallel()
	rows, texts := realLLMPerfRows(t, "leaderboard_groq_70b.json")
	first := rows[0]
	for name, c := range map[string]struct{ got, want any }{
		"rows":          {len(rows), 150},
		"TTFT (ns)":     {deref(first.TTFTNS), int64(297977801)},
		"E2E (ns)":      {deref(first.E2ENS), int64(890009040)},
		"prompt tokens": {deref(first.PromptTokens), int32(550)},
		"output tokens": {deref(first.OutputTokens), int32(150)},
		"streamed":      {deref(first.Streamed), nil},
		"times":         {first.Start == 0 && first.FirstToken == 0 && first.End == 0, true},
		"request ID":    {first.RequestID, ""},
		"error":         {first.Error, ""},
	} {
		if c.got != c.want {
			t.Errorf("groq_70b %s = %v, want %v\nrow: %s", name, c.got, c.want, texts[0])
		}
	}

	// errors counts a file's rows by status and error.
	errors := func(rows []ClientRow) map[string]int {
		n := map[string]int{}
		for _, r := range rows {
			if r.Error != "" {
				n[fmt.Sprintf("%d %s", r.Status, r.Error)]++
				if r.E2ENS != nil || r.TTFTNS != nil || r.OutputTokens != nil || deref(r.PromptTokens) != int32(550) {
					t.Errorf("a failed request keeps its prompt tokens only: %+v", r)
				}
			}
		}
		return n
	}
	rows, _ = realLLMPerfRows(t, "leaderboard_perplexity_70b.json")
	if got := errors(rows); len(rows) != 150 || len(got) != 1 || got["429 token_rate_limit_exceeded"] != 2 {
		t.Errorf("perplexity_70b: %d rows, errors %v; want 150 rows, two of status 429 and Error the body's type", len(rows), got)
	}
	for _, r := range rows {
		if r.Error != "" && r.Status != 429 {
			t.Errorf("perplexity_70b: status %d, want 429: %+v", r.Status, r)
		}
	}
	rows, _ = realLLMPerfRows(t, "leaderboard_together_13b.json")
	if got := errors(rows); len(rows) != 150 || len(got) != 1 || got["0 error -<n>"] != 1 {
		t.Errorf("together_13b: %d rows, errors %v; want 150 rows, one \"error -1\" without status", len(rows), got)
	}
	rows, texts = realLLMPerfRows(t, "leaderboard_bedrock_13b.json")
	tooFew := 0
	for i, r := range rows {
		if r.Error == "Output too few tokens <n>" && r.Status == 0 {
			tooFew++
		}
		if strings.Contains(texts[i], "dread") || strings.Contains(texts[i], "GEN_TEXT") {
			t.Errorf("bedrock_13b: a row holds the generated text: %s", texts[i])
		}
	}
	if len(rows) != 150 || tooFew != 97 || rows[0].Error != "Output too few tokens <n>" {
		t.Errorf("bedrock_13b: %d rows, %d \"Output too few tokens <n>\", first %q; want 150, 97, the first one of them",
			len(rows), tooFew, rows[0].Error)
	}
	rows, _ = realLLMPerfRows(t, "leaderboard_lepton_7b.json")
	if got := errors(rows); len(rows) != 150 || len(got) != 1 || got["429 error <n>"] != 130 {
		t.Errorf("lepton_7b: %d rows, errors %v; want 150 rows, 130 of status 429 and Error \"error <n>\"", len(rows), got)
	}
}
