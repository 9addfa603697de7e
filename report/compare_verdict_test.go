package report

import (
	"testing"

	"github.com/infertrace/infertrace/compare"
)

// The verdict on a change in one sentence, for each verdict: the rejecting
// constraint with both sides, its change, interval, counts and allowance;
// what moved within its allowance; what cannot tell.
func TestVerdictText(t *testing.T) {
	t.Parallel()
	v := verdictFixture()
	if got, want := VerdictText(v), "REJECT: "+evil+" quality drops (constraint 1): eval pass rate 95.0% → 80.0% (−15.0 pp, 95% interval −20.0 pp to −10.0 pp; n=400 vs 400), allowance none."; got != want {
		t.Errorf("reject:\n got %s\nwant %s", got, want)
	}

	v = verdictFixture()
	c := &v.Cases[0]
	c.Name = "chat"
	c.Constraints[0].Status, c.Constraints[0].Delta = compare.ChangeNone, fp(0)
	c.Verdict, c.Deciding, c.QualityHolds = compare.VerdictAccept, -1, true
	v.Verdict, v.Deciding = compare.VerdictAccept, -1
	if got, want := VerdictText(v), "ACCEPT: chat: quality holds and every worsening is allowed (client TTFT P95 +30.0 ms, within its allowance of 50.0 ms)."; got != want {
		t.Errorf("accept:\n got %s\nwant %s", got, want)
	}

	c.Constraints[0].Status, c.Constraints[0].Why = compare.ChangeCannotTell, "n too small on the target"
	c.Verdict = compare.VerdictUndecided
	v.Verdict = compare.VerdictUndecided
	if got, want := VerdictText(v), "UNDECIDED: chat: nothing worsened beyond its allowance, but eval pass rate (n too small on the target) cannot tell."; got != want {
		t.Errorf("undecided:\n got %s\nwant %s", got, want)
	}

	v.Cases = nil
	if got, want := VerdictText(v), "UNDECIDED: no use case of the contract has requests on both sides."; got != want {
		t.Errorf("no cases:\n got %s\nwant %s", got, want)
	}
	if VerdictText(nil) != "" {
		t.Error("no verdict gives a sentence")
	}
}
