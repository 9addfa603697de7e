package report

import (
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/analyze"
)

// contractHeadlines gives one line per use case of the contract (the
// whole use case, not its slices), said in the contract's order: a use
// case failing on its first constraint says so first, whatever its
// latency; else the first constraint it fails; else whether it passes or
// cannot be judged yet, with its goodput.
func contractHeadlines(r *analyze.Result) []Headline {
	if r.Contract == nil {
		return nil
	}
	var out []Headline
	for _, c := range r.Contract.Cases {
		if c.Slice != "" {
			continue
		}
		out = append(out, Headline{Topic: HeadlineContract, Text: caseHeadline(c)})
	}
	return out
}

func caseHeadline(c analyze.CaseResult) string {
	measured := func(k analyze.ConstraintResult) string {
		return fmt.Sprintf("%s %s (n=%d), target %s", constraintName(k), constraintShown(k), k.N, constraintTarget(k))
	}
	goodput := ""
	if g := c.Goodput; g.Share != nil {
		goodput = fmt.Sprintf("; goodput %.1f%%", 100**g.Share)
		if len(c.Causes) > 0 {
			goodput += fmt.Sprintf(", misses mostly %s", c.Causes[0].Cause)
		}
	}
	switch c.Verdict {
	case "fail":
		k := c.Constraints[c.FirstFail]
		fails := 0
		for _, x := range c.Constraints {
			if x.Verdict == "fail" {
				fails++
			}
		}
		more := ""
		if fails > 1 {
			more = fmt.Sprintf(" (%d of %d fail)", fails, len(c.Constraints))
		}
		if c.FirstFail == 0 {
			return fmt.Sprintf("%s FAILS on its first constraint, %s%s: %s%s.", c.Name, k.Kind, more, measured(k), goodput)
		}
		return fmt.Sprintf("%s FAILS on %s, constraint %d%s: %s%s.", c.Name, k.Kind, c.FirstFail+1, more, measured(k), goodput)
	case "incomplete":
		var open []string
		for _, x := range c.Constraints {
			switch x.Verdict {
			case "pass":
			case "n too small":
				// Never a number from too few samples: its n instead.
				open = append(open, fmt.Sprintf("%s n too small (n=%d)", constraintName(x), x.N))
			default:
				open = append(open, constraintName(x)+" "+x.Verdict)
			}
		}
		return fmt.Sprintf("%s cannot be judged on every constraint: %s; the others pass%s.", c.Name, strings.Join(open, ", "), goodput)
	}
	return fmt.Sprintf("%s meets its contract: all %d constraints pass%s.", c.Name, len(c.Constraints), goodput)
}

// Headline is one short sentence answering one of the report's questions.
type Headline struct {
	Topic string // one of the questions below
	Text  string
}

// The questions headlines answer, in the order a report shows them.
const (
	HeadlineTime      = "Where the time goes"
	HeadlineFailures  = "Failed requests"
	HeadlinePhases    = "Burst and cold start"
	HeadlineStandsOut = "What stands out"
	HeadlineData      = "Can the data be trusted"
	HeadlineContract  = "Does each use case meet its contract"
	HeadlineTrend     = "What changed since the previous period"
)
