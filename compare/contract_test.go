package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/contract"
)

// verdictContract: analyzetest.ChatContract (chat's quality first, then
// P95 client TTFT, which may worsen by 50 ms), then the error rate.
const verdictContract = analyzetest.ChatContract + `  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = "1%"
`

func verdictCompare(t *testing.T, shift int64, pass int) *Comparison {
	t.Helper()
	bf, be := analyzetest.Chat("b", 0, 380)
	tf, te := analyzetest.Chat("t", shift, pass)
	base := runFixture(t, bf)
	target := runFixture(t, tf)
	evals := filepath.Join(t.TempDir(), "evals.csv")
	if err := os.WriteFile(evals, []byte("request_id,pass\n"+be+te), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := contract.Parse("contract.toml", []byte(verdictContract), analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := Run(context.Background(), Options{Baseline: CompareSide{Dir: base}, Target: CompareSide{Dir: target},
		Contract: c, Evals: evals})
	if err != nil {
		t.Fatal(err)
	}
	if cmp.Verdict == nil || len(cmp.Verdict.Cases) != 1 || len(cmp.Verdict.Cases[0].Constraints) != 3 {
		t.Fatalf("verdict = %+v, want chat with its three constraints", cmp.Verdict)
	}
	return cmp
}

// P95 client TTFT of 100..499 (+30 on the target) by quantile_cont is
// 479.05 (509.05): +30 ms. Its contract interval has the order
// statistics of ranks floor(380 - 1.96 sqrt(19)) = 371 and ceil(380 +
// 1.96 sqrt(19)) + 1 = 390, values 470 and 489 (500 and 519): se 19 /
// 3.92 on each side, the change's 95% half-width 1.96 sqrt(2) 19 / 3.92
// = 13.4 ms, so +30 ms is a worsening, within its 50 ms. The eval pass
// rate is 380 of 400 on both sides: no change. No errors on either side.
func TestCompareContractAccept(t *testing.T) {
	t.Parallel()
	cmp := verdictCompare(t, 30, 380)
	v := cmp.Verdict
	ks := v.Cases[0].Constraints
	if ks[0].Status != ChangeNone || !nearTol(ks[0].Delta, 0, 1e-12) || ks[0].Kind() != "quality" {
		t.Errorf("eval pass rate: %+v, want no significant change", ks[0])
	}
	ttft := ks[1]
	half := contractZ * math.Sqrt2 * 19 / (2 * contractZ)
	if ttft.Status != ChangeWithin || !nearTol(ttft.Delta, 30, 1e-6) || !nearTol(ttft.Lo, 30-half, 1e-6) || !nearTol(ttft.Hi, 30+half, 1e-6) || ttft.Allowed != 50 {
		t.Errorf("client TTFT P95: %s %s [%s, %s] allowed %v, want worsened within 50 ms by 30 ± %.2f",
			ttft.Status, fmtp(ttft.Delta), fmtp(ttft.Lo), fmtp(ttft.Hi), ttft.Allowed, half)
	}
	if ks[2].Status != ChangeNone {
		t.Errorf("error rate: %+v, want no significant change", ks[2])
	}
	if v.Verdict != VerdictAccept || v.Deciding != -1 || !v.Cases[0].QualityHolds || v.Cases[0].Verdict != VerdictAccept || v.Cases[0].Deciding != -1 {
		t.Errorf("verdict %s (deciding case %d), chat %s (deciding constraint %d), want accept", v.Verdict, v.Deciding, v.Cases[0].Verdict, v.Cases[0].Deciding)
	}

	// The same +30 ms with an allowance of 5% of the baseline's 479.05
	// (23.95 ms) is beyond it.
	c, _ := contract.Parse("c.toml", []byte(strings.Replace(verdictContract, `may_worsen = "50ms"`, `may_worsen = "5%"`, 1)), analyze.SliceColumns)
	b, tr := cmp.Verdict.Cases[0].Constraints[1].Baseline, cmp.Verdict.Cases[0].Constraints[1].Target
	b.Constraint, tr.Constraint = c.Cases[0].Constraints[1], c.Cases[0].Constraints[1]
	if ch := constraintChange(b, tr); ch.Status != ChangeBeyond || math.Abs(ch.Allowed-0.05*479.05) > 1e-6 {
		t.Errorf("5%% of the baseline: %s allowed %v, want beyond 23.95", ch.Status, ch.Allowed)
	}
}

// Quality drops: 320 of 400 pass on the target against 380 (95% → 80%,
// Wilson intervals [92.4%, 96.9%] and [75.8%, 83.6%]), so the change is
// rejected on quality, said first, whatever the latency (unchanged here).
func TestCompareContractRejectQuality(t *testing.T) {
	t.Parallel()
	v := verdictCompare(t, 0, 320).Verdict
	q := v.Cases[0].Constraints[0]
	if q.Status != ChangeBeyond || !nearTol(q.Delta, -0.15, 1e-12) || q.Hi == nil || *q.Hi >= 0 {
		t.Errorf("eval pass rate: %s %s [%s, %s], want a drop beyond the noise", q.Status, fmtp(q.Delta), fmtp(q.Lo), fmtp(q.Hi))
	}
	if v.Cases[0].Constraints[1].Status != ChangeNone {
		t.Errorf("client TTFT: %s, want no significant change", v.Cases[0].Constraints[1].Status)
	}
	if v.Verdict != VerdictReject || v.Cases[0].QualityHolds {
		t.Errorf("verdict %s, want reject", v.Verdict)
	}
	// Quality decides: the first use case, its first constraint.
	if v.Deciding != 0 || v.Cases[0].Deciding != 0 {
		t.Errorf("deciding case %d, constraint %d; want 0 and 0", v.Deciding, v.Cases[0].Deciding)
	}
}

// compare judges the contract on each side: a use case that selects no
// request there is an error naming the side, not a use case left out of
// the verdict.
func TestCompareContractSelectsNothing(t *testing.T) {
	t.Parallel()
	bf, _ := analyzetest.Chat("b", 0, 380)
	tf, _ := analyzetest.Chat("t", 0, 380)
	base := runFixture(t, bf)
	target := runFixture(t, tf)
	c, err := contract.Parse("contract.toml", []byte(verdictContract+`
[[use_case]]
name = "rag"
  [[use_case.constraint]]
  metric = "error_rate"
  op = "<="
  target = "1%"
`), analyze.SliceColumns)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), Options{Baseline: CompareSide{Dir: base}, Target: CompareSide{Dir: target}, Contract: c})
	want := `contract on the baseline: contract.toml:20: use case "rag": match use_case="rag" selects no request; use_case values present: chat`
	var ce *contract.Error
	if !errors.As(err, &ce) || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// runFixture writes f into a fresh directory, analyzes it and returns the
// directory.
func runFixture(t *testing.T, f analyzetest.Fixture) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if err := analyzetest.Write(ctx, dir, f, analyzetest.DefaultOffsets); err != nil {
		t.Fatal(err)
	}
	if _, err := analyze.Run(ctx, dir); err != nil {
		t.Fatalf("analyze: %v", err)
	}
	return dir
}

// nearTol reports whether *p is within tol of want.
func nearTol(p *float64, want, tol float64) bool {
	return p != nil && math.Abs(*p-want) < tol
}

func fmtp(p *float64) string {
	if p == nil {
		return "NULL"
	}
	return fmt.Sprint(*p)
}
