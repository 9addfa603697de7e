package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/textsafe"
)

// presentMax bounds the values an error about a contract lists.
const presentMax = 20

// checkSelects returns a *contract.Error for the first use case of c that
// selects no request (whole is the case_ids that have some): which match
// condition selects nothing and the values its column holds, or that the
// values occur but never together. A typo in a use case's name or match
// would otherwise leave the use case out of the report in silence.
func checkSelects(ctx context.Context, db *sql.DB, c *contract.Contract, whole map[int64]bool) error {
	if len(whole) == len(c.Cases) {
		return nil
	}
	rows, err := duck.Rows(ctx, db, "contract_unmatched")
	if err != nil {
		return err
	}
	byCase := map[int64][]map[string]any{}
	for _, r := range rows {
		id := duck.Int(r["case_id"])
		byCase[id] = append(byCase[id], r)
	}
	for id, uc := range c.Cases {
		if whole[int64(id)] {
			continue
		}
		fail := func(format string, args ...any) error {
			return &contract.Error{File: textsafe.Label(c.File), Line: uc.MatchLine, Case: textsafe.Label(uc.Name), Msg: fmt.Sprintf(format, args...)}
		}
		var missing, all []string
		for _, r := range byCase[int64(id)] {
			if r["col"] == nil {
				return fail("selects no request: the run has none")
			}
			col, value := duck.String(r["col"]), duck.String(r["value"])
			cond := fmt.Sprintf("%s=%q", col, textsafe.Label(value))
			all = append(all, cond)
			if r["occurs"] == true {
				continue
			}
			var present []string
			for _, v := range duck.List(r["present"]) {
				present = append(present, textsafe.Label(duck.String(v)))
			}
			switch {
			case len(present) == 0:
				missing = append(missing, fmt.Sprintf("match %s selects no request; no request has a %s", cond, col))
			default:
				missing = append(missing, fmt.Sprintf("match %s selects no request; %s values present: %s%s",
					cond, col, listed(present), contract.DidYouMean(value, present)))
			}
		}
		switch {
		case len(missing) > 0:
			return fail("%s", strings.Join(missing, "; "))
		case len(all) > 0:
			return fail("match %s selects no request: each value occurs, but no request has them all", strings.Join(all, ", "))
		}
		return fail("selects no request")
	}
	return nil
}

// checkEvals returns a *contract.Error for the first constraint of c that
// names an eval the evals input does not hold.
func checkEvals(ctx context.Context, db *sql.DB, c *contract.Contract) error {
	var names []string
	loaded := false
	for _, uc := range c.Cases {
		for j, k := range uc.Constraints {
			if k.Eval == "" {
				continue
			}
			if !loaded {
				rows, err := duck.Rows(ctx, db, "eval_names")
				if err != nil {
					return err
				}
				for _, r := range rows {
					names = append(names, textsafe.Label(duck.String(r["eval"])))
				}
				loaded = true
			}
			if hasString(names, k.Eval) {
				continue
			}
			e := &contract.Error{File: textsafe.Label(c.File), Case: textsafe.Label(uc.Name)}
			if j < len(uc.ConstraintLines) {
				e.Line = uc.ConstraintLines[j]
			}
			if len(names) == 0 {
				e.Msg = fmt.Sprintf("eval %q selects no eval row: the evals input names no eval", textsafe.Label(k.Eval))
			} else {
				e.Msg = fmt.Sprintf("eval %q selects no eval row; eval names present: %s%s", textsafe.Label(k.Eval), listed(names), contract.DidYouMean(textsafe.Label(k.Eval), names))
			}
			return e
		}
	}
	return nil
}

// listed joins the first presentMax values (labels) and says how many
// more there are.
func listed(values []string) string {
	var out []string
	for i, v := range values {
		if i == presentMax {
			out = append(out, fmt.Sprintf("and %d more", len(values)-presentMax))
			break
		}
		out = append(out, v)
	}
	return strings.Join(out, ", ")
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
