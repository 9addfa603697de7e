package analyze

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/contract"
)

// A use case of the contract that selects no request of the run, or a
// constraint naming an eval the evals do not hold, is an error naming the
// file, the line, the use case and the values present, not a use case
// left out of the report. The fixture's requests are all use_case chat,
// on models m1 and m2; only c5 (m2) has status 500.
func TestContractSelectsNothing(t *testing.T) {
	t.Parallel()
	dir, _, _ := runFixture(t, contractFixture(), analyzetest.DefaultOffsets)
	tmp := t.TempDir()
	evals := writeFile(t, tmp, "evals.csv", "request_id,eval,pass\nc1,helpfulness,true\nc2,safety,true\n")
	const k = "  [[use_case.constraint]]\n  metric = \"error_rate\"\n  op = \"<=\"\n  target = 0.1\n"
	for i, tc := range []struct{ name, file, want string }{
		// The file's name is contract.toml, or contract.yaml where the
		// test's name says YAML.
		{"name typo", "[[use_case]]\nname = \"chta\"\n" + k,
			`contract.toml:2: use case "chta": match use_case="chta" selects no request; use_case values present: chat; did you mean chat?`},
		{"match value typo", "[[use_case]]\nname = \"chat\"\n" + k + "[[use_case]]\nname = \"big\"\nmatch = { model = \"m3\" }\n" + k,
			`contract.toml:9: use case "big": match model="m3" selects no request; model values present: m1, m2`},
		{"match in YAML", "use_case:\n  - name: big\n    match: {model: M1, status: 200}\n    constraint:\n      - {metric: error_rate, op: \"<=\", target: 0.1}\n",
			`contract.yaml:3: use case "big": match model="M1" selects no request; model values present: m1, m2; did you mean m1?`},
		{"values apart", "[[use_case]]\nname = \"m1 errors\"\nmatch = { model = \"m1\", status = 500 }\n" + k,
			`contract.toml:3: use case "m1 errors": match model="m1", status="500" selects no request: each value occurs, but no request has them all`},
		{"eval typo", "[[use_case]]\nname = \"chat\"\n" + k + "  [[use_case.constraint]]\n  metric = \"eval_pass_rate\"\n  eval = \"helpfulnes\"\n  op = \">=\"\n  target = 0.9\n",
			`contract.toml:7: use case "chat": eval "helpfulnes" selects no eval row; eval names present: helpfulness, safety; did you mean helpfulness?`},
	} {
		name := "contract.toml"
		if strings.Contains(tc.name, "YAML") {
			name = "contract.yaml"
		}
		c, err := contract.Load(writeFile(t, tmp, name, tc.file), SliceColumns)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c.File = name
		// The checks, as Summarize makes them; Summarize itself once.
		check := judge1
		if i == 0 {
			check = func(ctx context.Context, dir string, opts SummaryOptions) error {
				_, err := summarize1(ctx, dir, opts)
				return err
			}
		}
		err = check(context.Background(), dir, SummaryOptions{Contract: c, Evals: evals})
		var ce *contract.Error
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("%s:\nerror %v\nwant  %s", tc.name, err, tc.want)
		}
	}
}
