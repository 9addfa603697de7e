package e2e

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// TestGroundTruthErrorMix: with an error mix simulated (--errors), the
// report's error rate of every slice is the truth's over the same requests,
// its percentiles are those of the truly successful requests (checkTruth),
// and the Summary and the Failed requests table say so.
func TestGroundTruthErrorMix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	simDir, outDir := simulateAndRunN(t, 21, gtRequests, "--errors", "500:0.03,503:0.03,429:0.02,408:0.03")
	db := openTruthDB(t, simDir, outDir)

	bad, st, err := checkTruth(ctx, db, "requests", "truth")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bad {
		if i == 30 {
			t.Errorf("... and %d more mismatches", len(bad)-i)
			break
		}
		t.Error(b)
	}
	if st.quantiles < 300 {
		t.Errorf("only %d per-slice quantiles compared", st.quantiles)
	}

	res, err := analyze.Summarize(ctx, outDir, analyze.SummaryOptions{Resources: oneThread})
	if err != nil {
		t.Fatal(err)
	}
	// The truth per slice of the report (model and use case as analyze
	// read them from the logs): requests, those whose client saw no 2xx,
	// and those without a client record, whose status analyze takes from
	// the gateway (a client that timed out after the gateway had sent a
	// 200 then counts as a success): the only leeway allowed.
	rows, err := db.Query(`
		SELECT coalesce(r.model, '(none)'), coalesce(r.use_case, '(none)'), count(*),
		       count(*) FILTER (WHERE t.status NOT BETWEEN 200 AND 299),
		       count(*) FILTER (WHERE NOT t.has_client)
		FROM truth AS t JOIN requests AS r USING (request_id)
		GROUP BY ALL`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type truthSlice struct{ requests, failed, clientless int64 }
	truth := map[string]truthSlice{}
	var all truthSlice
	for rows.Next() {
		var model, useCase string
		var ts truthSlice
		if err := rows.Scan(&model, &useCase, &ts.requests, &ts.failed, &ts.clientless); err != nil {
			t.Fatal(err)
		}
		truth["model="+model+", use_case="+useCase] = ts
		all.requests, all.failed, all.clientless = all.requests+ts.requests, all.failed+ts.failed, all.clientless+ts.clientless
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	truth["all requests"] = all
	if all.failed < gtRequests/20 {
		t.Fatalf("the truth has %d failures of %d requests: the mix did not take", all.failed, all.requests)
	}
	compared := 0
	for _, s := range res.Slices {
		ts, ok := truth[s.Label]
		if !ok {
			t.Errorf("%s: a slice the truth does not have", s.Label)
			continue
		}
		compared++
		if d := s.Failed - ts.failed; s.Requests != ts.requests || d < -ts.clientless || d > ts.clientless {
			t.Errorf("%s: %d failed of %d, truth %d of %d (%d without a client record)", s.Label, s.Failed, s.Requests, ts.failed, ts.requests, ts.clientless)
		}
		t.Logf("%s: %d failed of %d (truth %d); by outcome %v", s.Label, s.Failed, s.Requests, ts.failed, s.Failures)
	}
	if compared != len(truth) {
		t.Errorf("%d slices compared, the truth has %d", compared, len(truth))
	}

	// The fast 503s and 429s: their own P50 client E2E is far below the
	// successful requests' P50, which is why they are kept apart.
	p50 := res.Slices[0].ClientE2E.P50
	for _, f := range res.Failures {
		if (f.Outcome == "503" || f.Outcome == "429") && (f.ClientE2E.P50 == nil || p50 == nil || *f.ClientE2E.P50 > *p50/10) {
			t.Errorf("%s: P50 client E2E %v, want far below the successful requests' %v", f.Outcome, f.ClientE2E.P50, p50)
		}
	}

	b, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	summary, _, _ := strings.Cut(md, "\n## Findings\n")
	for _, re := range []string{
		`\*\*Failed requests\.\*\* \d+\.\d% failed \(\d+ of \d+: (\d+|error, no status) ×\d+(, (\d+|error, no status) ×\d+)+\);? latency percentiles are over the \d+ successful requests`,
		`\| \*\*all requests\*\* \| \d+ \| \d+\.\d% \(\d+ of \d+\) \|`,
		`### Failed requests`,
		`\| 503 \| \d+ \| \d+\.\d% \| yes \| [\d.]+ \| \d+ \|`,
	} {
		if !regexp.MustCompile(re).MatchString(summary) {
			t.Errorf("the summary of report.md does not match %s", re)
		}
	}
}
