package analyzetest

import (
	"fmt"
	"strings"
)

// Trend (report --period) is three days of 400 client records each, one every 100
// ms from 12:00 UTC (Base is Sunday 2026-03-01): client E2E
// 100+i ms on Sunday, 101+i on Monday (a 1 ms shift: noise), and on
// Tuesday 100+i but 1100+i for the slowest 40 (i >= 360): a slower day
// at P95, not at P50. TTFT 50 + i%50 every day; no errors.
func Trend() Fixture {
	var f Fixture
	for d := int64(0); d < 3; d++ {
		for i := int64(0); i < 400; i++ {
			e2e := 100 + i
			switch {
			case d == 1:
				e2e++
			case d == 2 && i >= 360:
				e2e += 1000
			}
			start := d*24*3600*1000 + i*100
			f.Clients = append(f.Clients, Client{
				ID: fmt.Sprintf("d%d-%03d", d, i), Start: At(start),
				FirstToken: At(start + 50 + i%50), End: At(start + e2e),
				Status: Int(200), Streamed: Bool(true), Model: "m", UseCase: "chat",
				Line: int(d*400 + i + 1),
			})
		}
	}
	return f
}

// Chat is 400 streamed chat requests with client TTFT 100+i+shift
// ms (i = 0..399), IDs prefix-i, and their eval rows: the first pass
// requests pass (evals: CSV rows request_id,pass without a header).
func Chat(prefix string, shift int64, pass int) (Fixture, string) {
	var f Fixture
	var evals strings.Builder
	for i := int64(0); i < 400; i++ {
		id := fmt.Sprintf("%s-%03d", prefix, i)
		start := i * 100
		f.Clients = append(f.Clients, Client{ID: id, Start: At(start),
			FirstToken: At(start + 100 + i + shift), End: At(start + 1000 + i + shift),
			Status: Int(200), Streamed: Bool(true), Model: "m", UseCase: "chat", Line: int(i + 1)})
		fmt.Fprintf(&evals, "%s,%t\n", id, int(i) < pass)
	}
	return f, evals.String()
}

// ChatContract is the contract Chat's fixtures are judged against in the
// tests of compare's verdict: chat's quality first (eval pass rate at
// least 90%), then P95 client TTFT (at most 800 ms, which may worsen by
// 50 ms).
const ChatContract = `
[[use_case]]
name = "chat"
  [[use_case.constraint]]
  metric = "eval_pass_rate"
  op = ">="
  target = "90%"
  [[use_case.constraint]]
  metric = "client_ttft_ms"
  percentile = 95
  op = "<="
  target = "800ms"
  may_worsen = "50ms"
`
