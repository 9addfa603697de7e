package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/infertrace/infertrace/contract"
	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/internal/textsafe"
	"github.com/infertrace/infertrace/queries"
)

// JudgeContract judges opts.Contract over the requests view of db, with
// the evals and prices of opts, as Summarize does (nil without a
// contract).
func JudgeContract(ctx context.Context, db *sql.DB, opts SummaryOptions) (*ContractResult, error) {
	if err := registerQualityInputs(ctx, db, opts); err != nil {
		return nil, err
	}
	var res Result
	if err := quality(ctx, db, opts, &res); err != nil {
		return nil, err
	}
	return res.Contract, nil
}

// wantsQuality reports whether opts names evals, prices or a contract.
func wantsQuality(opts SummaryOptions) bool {
	return opts.Evals != "" || opts.Prices != "" || opts.Contract != nil
}

// registerQualityInputs reads and checks the evals and prices files of
// opts into the tables evals and prices (registerInput), where opts names
// any of evals, prices or a contract; quality reads them. Summarize does
// so before its summary, so that a wrong file fails before the work.
func registerQualityInputs(ctx context.Context, db *sql.DB, opts SummaryOptions) error {
	if !wantsQuality(opts) {
		return nil
	}
	if err := registerInput(ctx, db, "evals", opts.Evals, "request_id", []string{"score", "pass"}); err != nil {
		return err
	}
	return registerInput(ctx, db, "prices", opts.Prices, "model", nil)
}

// quality joins evals and prices (registerQualityInputs) to the requests
// and judges the contract, where opts names any of them: per slice
// quality and cost (Slice.Quality), how the evals joined (Result.Evals),
// and the contract per use case and slice (Result.Contract).
func quality(ctx context.Context, db *sql.DB, opts SummaryOptions, res *Result) error {
	if !wantsQuality(opts) {
		return nil
	}
	res.Quality = opts.Evals != "" || opts.Prices != ""
	if err := duck.TempTable(ctx, db, "request_quality"); err != nil {
		return err
	}
	if opts.Evals != "" {
		rows, err := duck.Rows(ctx, db, "evals_joined")
		if err != nil {
			return err
		}
		j := &EvalsJoin{File: textsafe.Label(opts.Evals)}
		if len(rows) == 1 {
			r := rows[0]
			j.Rows, j.Requests, j.Unmatched = duck.Int(r["rows"]), duck.Int(r["requests"]), duck.Int(r["unmatched"])
			for _, e := range duck.List(r["unmatched_examples"]) {
				j.UnmatchedExamples = append(j.UnmatchedExamples, duck.String(e))
			}
		}
		res.Evals = j
	}
	if err := sliceQuality(ctx, db, res); err != nil {
		return err
	}
	if opts.Contract != nil {
		c, err := judge(ctx, db, opts.Contract, opts.Evals != "")
		if err != nil {
			return err
		}
		res.Contract = c
	}
	return nil
}

// inputReader is the DuckDB table function reading an evals or prices
// file, by its extension: CSV with a header (every column as text), JSON
// lines, or Parquet.
func inputReader(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "read_csv(" + duck.Quote(path) + ", header = true, all_varchar = true)", nil
	case ".tsv":
		return "read_csv(" + duck.Quote(path) + ", header = true, all_varchar = true, delim = '\t')", nil
	case ".jsonl", ".ndjson", ".json":
		return "read_json(" + duck.Quote(path) + ", format = 'newline_delimited')", nil
	case ".parquet":
		return "read_parquet(" + duck.Quote(path) + ")", nil
	}
	return "", fmt.Errorf("want a .csv, .tsv, .jsonl, .ndjson, .json or .parquet file")
}

// registerInput creates the table name (evals or prices): the file at path
// read as text into name_input (the columns of queries/empty_<name>.sql,
// ord its row), checked by <name>_check.sql and typed by <name>.sql. No
// path: an empty table. The file must have the column key and, when
// oneOf is not empty, one of oneOf.
func registerInput(ctx context.Context, db *sql.DB, name, path, key string, oneOf []string) error {
	empty, err := queries.Get("empty_" + name)
	if err != nil {
		return err
	}
	input := name + "_input"
	q := "CREATE OR REPLACE TEMP TABLE " + input + " AS SELECT * FROM (" + duck.Strip(empty) + ")"
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s %s: %s", name, textsafe.Label(path), fmt.Sprintf(format, args...))
	}
	if path != "" {
		reader, err := inputReader(path)
		if err != nil {
			return fail("%v", err)
		}
		cols, err := columnsOf(ctx, db, reader)
		if err != nil {
			return fail("%v", err)
		}
		want, err := queryColumns(ctx, db, duck.Strip(empty))
		if err != nil {
			return err
		}
		has := map[string]bool{}
		for _, c := range cols {
			has[c] = true
		}
		if !has[key] {
			return fail("no %s column (columns: %s)", key, textsafe.Label(strings.Join(cols, ", ")))
		}
		if len(oneOf) > 0 {
			found := false
			for _, c := range oneOf {
				found = found || has[c]
			}
			if !found {
				return fail("no %s column (columns: %s)", strings.Join(oneOf, " or "), textsafe.Label(strings.Join(cols, ", ")))
			}
		}
		var sel []string
		for _, c := range want {
			if c != "ord" && has[c] {
				sel = append(sel, "CAST("+quoteIdent(c)+" AS VARCHAR) AS "+quoteIdent(c))
			}
		}
		// ord: the row's place in the file. Parquet numbers its rows;
		// CSV and JSON keep the file's order while insertion order is
		// preserved (openIn turns it off for the analysis).
		ord := "row_number() OVER ()"
		if strings.EqualFold(filepath.Ext(path), ".parquet") {
			reader = strings.TrimSuffix(reader, ")") + ", file_row_number = true)"
			ord = "file_row_number + 1"
		}
		q += "\nUNION ALL BY NAME\nSELECT " + ord + " AS ord, " + strings.Join(sel, ", ") + " FROM " + reader
		if _, err := db.ExecContext(ctx, "SET preserve_insertion_order = true"); err != nil {
			return err
		}
		defer db.ExecContext(ctx, "SET preserve_insertion_order = false")
	}
	if _, err := db.ExecContext(ctx, q); err != nil {
		return fail("%v", err)
	}
	if path != "" {
		rows, err := duck.Rows(ctx, db, name+"_check")
		if err != nil {
			return err
		}
		if len(rows) > 0 {
			var msgs []string
			for _, r := range rows {
				msgs = append(msgs, fmt.Sprintf("row %d: %s", duck.Int(r["ord"]), duck.String(r["reason"])))
			}
			if n := duck.Int(rows[0]["problems"]); n > int64(len(rows)) {
				msgs = append(msgs, fmt.Sprintf("and %d more", n-int64(len(rows))))
			}
			return fail("%s", strings.Join(msgs, "; "))
		}
	}
	return duck.TempTable(ctx, db, name)
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// columnsOf lists the columns a table function yields.
func columnsOf(ctx context.Context, db *sql.DB, reader string) ([]string, error) {
	return queryColumns(ctx, db, "SELECT * FROM "+reader)
}

func queryColumns(ctx context.Context, db *sql.DB, q string) ([]string, error) {
	rows, err := db.QueryContext(ctx, "SELECT * FROM ("+q+") LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return rows.Columns()
}

// sliceQuality runs queries/slice_quality.sql into each Slice's Quality.
func sliceQuality(ctx context.Context, db *sql.DB, res *Result) error {
	rows, err := duck.Rows(ctx, db, "slice_quality")
	if err != nil {
		return err
	}
	for _, r := range rows {
		q := SliceQuality{
			Evaluated: duck.Int(r["evaluated"]), EvalPassN: duck.Int(r["eval_pass_n"]), EvalPassK: duck.Int(r["eval_pass_k"]),
			EvalPass: duck.Float(r["eval_pass_share"]), EvalPassLo: duck.Float(r["eval_pass_lo"]), EvalPassHi: duck.Float(r["eval_pass_hi"]),
			EvalScoreN: duck.Int(r["eval_score_n"]), EvalScore: duck.Float(r["eval_score_mean"]),
			Priced: duck.Int(r["priced"]), CostPer1K: duck.Float(r["cost_per_1k"]), CostSum: duck.Float(r["cost_sum"]),
			CostPerSuccess: duck.Float(r["cost_per_success"]),
		}
		all := r["is_all"] == true
		key := fmt.Sprint(duck.List(r["slice_key"]))
		for i := range res.Slices {
			s := &res.Slices[i]
			if s.All == all && (all || fmt.Sprint(sliceKeyOf(s)) == key) {
				s.Quality = q
			}
		}
	}
	return nil
}

// sliceKeyOf is the slice_key list of s as DuckDB returns it (nil for
// "(none)").
func sliceKeyOf(s *Slice) []any {
	out := make([]any, len(s.Values))
	for i, v := range s.Values {
		if v != "(none)" {
			out[i] = v
		}
	}
	return out
}

// judge fills the contract tables from c and measures every constraint of
// every use case and slice. A use case that selects no request, or (with
// evals) a constraint naming an eval the evals do not hold, is a
// *contract.Error.
func judge(ctx context.Context, db *sql.DB, c *contract.Contract, evals bool) (*ContractResult, error) {
	for _, s := range []string{
		"CREATE OR REPLACE TEMP TABLE contract_cases (case_id INTEGER, name VARCHAR, by_cols VARCHAR[])",
		"CREATE OR REPLACE TEMP TABLE contract_match (case_id INTEGER, col VARCHAR, value VARCHAR)",
		"CREATE OR REPLACE TEMP TABLE contract_targets (case_id INTEGER, target_id INTEGER, kind VARCHAR, metric VARCHAR, p DOUBLE, op VARCHAR, target DOUBLE, eval VARCHAR, per_request BOOLEAN)",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("contract tables: %w", err)
		}
	}
	for i, uc := range c.Cases {
		by := make([]string, len(uc.By))
		for j, b := range uc.By {
			by[j] = duck.Quote(b)
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO contract_cases VALUES (?, ?, ["+strings.Join(by, ", ")+"]::VARCHAR[])", i, uc.Name); err != nil {
			return nil, fmt.Errorf("contract tables: %w", err)
		}
		for _, m := range uc.Match {
			if _, err := db.ExecContext(ctx, "INSERT INTO contract_match VALUES (?, ?, ?)", i, m.Column, m.Value); err != nil {
				return nil, fmt.Errorf("contract tables: %w", err)
			}
		}
		for j, k := range uc.Constraints {
			m, _ := contract.MetricByName(k.Metric)
			var p, eval any
			if k.Percentile > 0 {
				p = k.Percentile
			}
			if k.Eval != "" {
				eval = k.Eval
			}
			if _, err := db.ExecContext(ctx, "INSERT INTO contract_targets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
				i, j, k.Kind, k.Metric, p, k.Op, k.Target, eval, k.Kind == "latency" && m.PerRequest); err != nil {
				return nil, fmt.Errorf("contract tables: %w", err)
			}
		}
	}
	for _, name := range []string{"contract_members", "contract_values", "contract_goodput"} {
		if name == "contract_goodput" {
			// Its medians, bounded in memory (pct_ci.sql).
			if err := pctTable(ctx, db, "contract", []float64{0.5}); err != nil {
				return nil, err
			}
		}
		if err := duck.TempTable(ctx, db, name); err != nil {
			return nil, err
		}
	}
	groups, err := duck.Rows(ctx, db, "contract_goodput")
	if err != nil {
		return nil, err
	}
	whole := map[int64]bool{}
	for _, g := range groups {
		if len(duck.List(g["slice_key"])) == 0 {
			whole[duck.Int(g["case_id"])] = true
		}
	}
	if err := checkSelects(ctx, db, c, whole); err != nil {
		return nil, err
	}
	if evals {
		if err := checkEvals(ctx, db, c); err != nil {
			return nil, err
		}
	}
	targets, err := duck.Rows(ctx, db, "contract_targets")
	if err != nil {
		return nil, err
	}
	out := &ContractResult{File: textsafe.Label(c.File)}
	for _, g := range groups {
		id := duck.Int(g["case_id"])
		uc := c.Cases[id]
		cr := CaseResult{
			Name: textsafe.Label(uc.Name), Requests: duck.Int(g["requests"]), Completed: duck.Int(g["completed"]),
			WindowFirst: duck.Time(g["window_first"]), WindowLast: duck.Time(g["window_last"]), WindowS: duck.Float(g["window_s"]),
			Evaluated: duck.Int(g["evaluated"]), Priced: duck.Int(g["priced"]), FirstFail: -1,
		}
		var match []string
		for _, m := range uc.Match {
			match = append(match, m.Column+"="+m.Value)
		}
		cr.Match = textsafe.Label(strings.Join(match, ", "))
		key := duck.List(g["slice_key"])
		var parts []string
		for i, v := range key {
			cr.Values = append(cr.Values, duck.String(v))
			parts = append(parts, uc.By[i]+"="+duck.String(v))
		}
		cr.Slice = strings.Join(parts, ", ")
		cr.Goodput = Goodput{Targets: duck.Int(g["per_request_targets"]), Good: duck.Int(g["good"]), Missed: duck.Int(g["missed"]),
			Unknown: duck.Int(g["unknown"]), Error: duck.Int(g["errors"]),
			Share: duck.Float(g["goodput_share"]), Lo: duck.Float(g["goodput_lo"]), Hi: duck.Float(g["goodput_hi"]), PerS: duck.Float(g["goodput_per_s"])}
		for _, x := range duck.List(g["causes"]) {
			m, _ := x.(map[string]any)
			cr.Causes = append(cr.Causes, MissCause{Cause: duck.String(m["cause"]), Requests: duck.Int(m["requests"])})
		}
		for _, t := range targets {
			if duck.Int(t["case_id"]) != id || fmt.Sprint(duck.List(t["slice_key"])) != fmt.Sprint(key) {
				continue
			}
			k := uc.Constraints[duck.Int(t["target_id"])]
			m, _ := contract.MetricByName(k.Metric)
			r := ConstraintResult{Constraint: k, Title: contract.Title(k.Metric), Unit: m.Unit,
				N: duck.Int(t["n"]), Value: duck.Float(t["value"]), CILo: duck.Float(t["ci_lo"]), CIHi: duck.Float(t["ci_hi"]),
				Verdict: duck.String(t["verdict"])}
			if t["k"] != nil {
				n := duck.Int(t["k"])
				r.K = &n
			}
			if b, ok := t["decided"].(bool); ok {
				r.Decided = &b
			}
			cr.Constraints = append(cr.Constraints, r)
		}
		cr.Verdict = "pass"
		for i, r := range cr.Constraints {
			switch {
			case r.Verdict == "fail" && cr.FirstFail < 0:
				cr.FirstFail, cr.Verdict = i, "fail"
			case r.Verdict != "pass" && r.Verdict != "fail" && cr.Verdict == "pass":
				cr.Verdict = "incomplete"
			}
		}
		out.Cases = append(out.Cases, cr)
	}
	return out, nil
}
