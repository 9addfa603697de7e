package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/infertrace/infertrace/internal/duck"
	"github.com/infertrace/infertrace/queries"
)

// Interval bounds a 95% confidence interval; a nil bound is open.
type Interval struct {
	Lo, Hi *float64
}

// pctCI is one row of queries/pct_ci.sql: the intervals of P95 and P99
// and which percentiles have too few samples.
type pctCI struct {
	Small        [4]bool // P50, P90, P95, P99
	P95CI, P99CI Interval
}

// reportTables are the tables of a report whose percentiles come from
// pct_ci.sql (the queries TABLE_ci_groups and TABLE_ci_values of each,
// or the cells of cellFamilies), all at the report's quantiles (the median
// of aborted.sql is their first).
var reportTables = []string{"aborted", "slice", "failure", "phase", "replica", "timeseries"}

// cellTables are the tables of reportTables whose samples are the cells
// of cellFamilies rather than TABLE_ci_values: a successful request's
// latencies are samples of its slice and of its phase, its model time per
// token of its replica and its phase, and reading and counting each once
// for both tables rather than once per table saves about a third of a
// report's samples.
var cellTables = []string{"slice", "phase", "replica"}

// cellFamilies are the queries of the cells, by pairs: FAMILY_ci_values.sql
// the samples by cell, FAMILY_ci_cells.sql the groups of cellTables each
// cell counts in.
var cellFamilies = []string{"slice_phase", "replica_phase"}

// reportPercentiles runs queries/pct_ci.sql once over the groups and
// samples of every table of reportTables rather than once per table: the
// percentiles of a group are its own samples' order statistics whichever
// other groups are computed beside it, so the figures are those of a run
// per table, for a fifth of the statements (each costs its planning, the
// most of a small store's time). Each table's groups (TABLE_ci_groups,
// a temporary table) keep their gid; in the run a group is (table, gid)
// and its part the table's, so that the all-requests group of the slice
// table takes the samples of its own table only; the cells of
// cellFamilies have ids after the tables' and count in the groups of
// cellTables their FAMILY_ci_cells.sql names (report_cells, pct_ci.sql's
// pct_cells). loaded says the requests
// are loaded in memory (loadRequests). The output, report_pct,
// is then seen per table as the view TABLE_pct, with the columns pctTable
// gives it, which the table's own query reads. It returns the intervals
// of each table keyed by ciKey.
func reportPercentiles(ctx context.Context, db *sql.DB, loaded bool) (map[string]map[string]pctCI, error) {
	var groups, values []string
	cellIndex := map[string]bool{}
	for _, table := range cellTables {
		cellIndex[table] = true
	}
	for k, table := range reportTables {
		if err := duck.TempTable(ctx, db, table+"_ci_groups"); err != nil {
			return nil, err
		}
		// Run-wide gid: the table's index in the high 32 bits.
		id := "((" + strconv.Itoa(k) + "::BIGINT << 32) + gid)"
		groups = append(groups, "SELECT "+id+" AS gid, grp_all, grp::VARCHAR[] AS grp, ["+duck.Quote(table)+
			", part::VARCHAR] AS part, "+duck.Quote(table)+" AS tbl, gid AS tgid FROM "+table+"_ci_groups")
		if cellIndex[table] {
			continue
		}
		q, err := queries.Get(table + "_ci_values")
		if err != nil {
			return nil, err
		}
		values = append(values, "SELECT "+id+" AS gid, metric, value FROM (\n"+duck.Strip(q)+"\n)")
	}
	// The cells: run-wide ids after the tables' (a family's index in the
	// high 32 bits), each group they count in by its run-wide gid.
	var cells []string
	for f, family := range cellFamilies {
		cellValues, err := queries.Get(family + "_ci_values")
		if err != nil {
			return nil, err
		}
		cellMap, err := queries.Get(family + "_ci_cells")
		if err != nil {
			return nil, err
		}
		cellID := "((" + strconv.Itoa(len(reportTables)+f) + "::BIGINT << 32) + "
		values = append(values, "SELECT "+cellID+"gid) AS gid, metric, value FROM (\n"+duck.Strip(cellValues)+"\n)")
		cells = append(cells, "SELECT "+cellID+"cell) AS src, tbl, gid, metric FROM (\n"+duck.Strip(cellMap)+"\n)")
	}
	tableIndex := "CASE tbl"
	for k, table := range reportTables {
		if cellIndex[table] {
			tableIndex += " WHEN " + duck.Quote(table) + " THEN " + strconv.Itoa(k)
		}
	}
	tableIndex += " END"
	// The groups are few: a table, which the statements of pct_ci.sql read
	// without binding the six queries again. So are the samples of a
	// loaded store (loadRequests); those of a larger one are read twice
	// from the requests, never held together.
	kind := "VIEW"
	if loaded {
		kind = "TABLE"
	}
	for _, s := range []string{
		"CREATE OR REPLACE TEMP TABLE pct_groups AS\n" + strings.Join(groups, "\nUNION ALL\n"),
		"CREATE OR REPLACE TEMP " + kind + " pct_values AS\n" + strings.Join(values, "\nUNION ALL\n"),
		"CREATE OR REPLACE TEMP TABLE report_cells AS SELECT src, ((" + tableIndex +
			")::BIGINT << 32) + gid AS gid, metric FROM (\n" + strings.Join(cells, "\nUNION ALL\n") + "\n)",
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("query report_ci: %w", err)
		}
	}
	duck.Step(ctx, "percentiles")
	if err := percentiles(ctx, db, "report_pct", reportQuantiles, "report_cells"); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	// pctTable's runs after this one (the trend, the contract) make views
	// of these names.
	for _, s := range []string{"DROP TABLE pct_groups", "DROP " + kind + " pct_values", "DROP TABLE report_cells"} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return nil, fmt.Errorf("query report_ci: %w", err)
		}
	}
	for _, table := range reportTables {
		// pct_ci.sql's columns: the group's (here the table's own, gid last
		// among them), then metric, n, q and the rest.
		v := "CREATE OR REPLACE TEMP VIEW " + table + "_pct AS SELECT g.* EXCLUDE (gid), p.tgid AS gid, " +
			"p.* EXCLUDE (gid, grp_all, grp, part, tbl, tgid) FROM report_pct AS p JOIN " + table +
			"_ci_groups AS g ON g.gid = p.tgid WHERE p.tbl = " + duck.Quote(table)
		if _, err := db.ExecContext(ctx, v); err != nil {
			return nil, fmt.Errorf("query %s_pct: %w", table, err)
		}
	}
	rows, err := queryTable(ctx, db, "report_pct")
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]pctCI{}
	for _, table := range reportTables {
		out[table] = map[string]pctCI{}
	}
	for _, r := range rows {
		var c pctCI
		for i, s := range duck.List(r["small"]) {
			if i < len(c.Small) {
				c.Small[i] = s == true
			}
		}
		c.P95CI = Interval{duck.Float(r["p95_lo"]), duck.Float(r["p95_hi"])}
		c.P99CI = Interval{duck.Float(r["p99_lo"]), duck.Float(r["p99_hi"])}
		out[duck.String(r["tbl"])][ciKey(r["grp_all"] == true, duck.List(r["grp"]), duck.String(r["metric"]))] = c
	}
	return out, nil
}

// pctTable runs queries/pct_ci.sql over the groups and samples of table
// (the queries TABLE_ci_groups and TABLE_ci_values) for the quantiles qs,
// into the temporary table TABLE_pct.
func pctTable(ctx context.Context, db *sql.DB, table string, qs []float64) error {
	if err := duck.TempTable(ctx, db, table+"_ci_groups"); err != nil {
		return err
	}
	values, err := queries.Get(table + "_ci_values")
	if err != nil {
		return err
	}
	for _, s := range []string{
		"CREATE OR REPLACE TEMP VIEW pct_groups AS SELECT * FROM " + table + "_ci_groups",
		"CREATE OR REPLACE TEMP VIEW pct_values AS " + duck.Strip(values),
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("query %s_ci: %w", table, err)
		}
	}
	duck.Step(ctx, table+" percentiles")
	if err := percentiles(ctx, db, table+"_pct", qs, ""); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}

// reportQuantiles are the percentiles of the report's tables: P50, P90,
// P95, P99.
var reportQuantiles = []float64{0.5, 0.9, 0.95, 0.99}

// periodQuantiles are those periods.sql reads: P50, P95 and P99 with
// their neighbours for the standard error.
var periodQuantiles = []float64{0.45, 0.5, 0.55, 0.93, 0.95, 0.97, 0.985, 0.99, 0.995}

// percentiles runs queries/pct_ci.sql over the views pct_groups and
// pct_values into the temporary table out, for the quantiles qs (its q
// column lists them in ascending order), with the cells of the table
// cells (its pct_cells input; "": none). The file is several statements;
// the rows of the last one are its result.
func percentiles(ctx context.Context, db *sql.DB, out string, qs []float64, cells string) error {
	q, err := queries.Get("pct_ci")
	if err != nil {
		return err
	}
	lit := make([]string, len(qs))
	for i, v := range qs {
		// The shortest decimal that reads back as v: the DOUBLE quantile_cont
		// would be given for the same literal.
		lit[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	view := "SELECT NULL::BIGINT AS src, NULL::BIGINT AS gid, NULL::VARCHAR AS metric WHERE false"
	if cells != "" {
		view = "SELECT src, gid, metric FROM " + cells
	}
	stmts := []string{
		"CREATE OR REPLACE TEMP VIEW pct_quantiles AS SELECT unnest([" + strings.Join(lit, ", ") + "])::DOUBLE AS q",
		"CREATE OR REPLACE TEMP VIEW pct_cells AS " + view,
	}
	for _, s := range strings.Split(q, ";\n") {
		if strings.TrimSpace(duck.StripComments(s)) != "" {
			stmts = append(stmts, s)
		}
	}
	last := len(stmts) - 1
	stmts[last] = "CREATE OR REPLACE TEMP TABLE " + out + " AS " + duck.Strip(stmts[last])
	// Each table the file creates is a step of --profile of its own: "out:
	// pct_buckets" and so on, the last one "out: pct_ci".
	// The views of the quantiles and cells, created first, are not recorded.
	prof := duck.ProfilerOf(db)
	for k, s := range stmts {
		p, name := prof, out+": pct_ci"
		if m := createdTable.FindStringSubmatch(s); m == nil {
			p = nil
		} else if k != last {
			name = out + ": " + m[1]
		}
		if err := p.Exec(ctx, db, name, s); err != nil {
			return fmt.Errorf("query pct_ci: %w", err)
		}
	}
	return nil
}

// createdTable finds the table a statement of pct_ci.sql creates.
var createdTable = regexp.MustCompile(`(?m)^\s*CREATE OR REPLACE TEMP TABLE (\w+) AS`)

// ciKey identifies a group and metric of pct_ci.sql.
func ciKey(all bool, grp []any, metric string) string {
	return fmt.Sprint(all, grp, metric)
}

// withCI gives d the intervals and small flags of its group and metric.
func withCI(d Dist, ci map[string]pctCI, all bool, grp []any, metric string) Dist {
	c, ok := ci[ciKey(all, grp, metric)]
	if !ok {
		// No row: no samples, so every percentile is too small.
		c.Small = [4]bool{true, true, true, true}
	}
	d.Small, d.P95CI, d.P99CI = c.Small, c.P95CI, c.P99CI
	return d
}

// queryTable returns every row of the temporary table name, as queryRows
// does for a query.
func queryTable(ctx context.Context, db *sql.DB, name string) ([]map[string]any, error) {
	return duck.Maps(ctx, db, name, "SELECT * FROM "+name)
}
