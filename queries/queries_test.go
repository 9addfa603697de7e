package queries

import (
	"strings"
	"testing"
)

// Every query analyze loads by name must be embedded.
func TestExpectedQueriesExist(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"empty_client", "empty_gateway", "empty_server", "empty_rejects",
		"coverage", "anomalies", "rejects", "slices", "slowest",
		"slice_dists", "slice_components", "slice_ttft_components",
		"phases", "replicas", "timeseries",
		"slice_ci_groups", "slice_phase_ci_values", "slice_phase_ci_cells", "replica_phase_ci_values", "replica_phase_ci_cells", "timeseries_ci_groups", "timeseries_ci_values", "pct_ci",
		"aborted", "aborted_ci_groups", "aborted_ci_values",
		"match_candidates", "tgi_rows", "tgi_gateways", "noid_servers", "noid_gateways", "tgi_round",
		"server_matched", "gateway_matched", "server_formats",
		"joins", "unjoined",
		"empty_evals", "evals_check", "evals", "evals_joined",
		"empty_prices", "prices_check", "prices", "request_quality", "slice_quality",
		"contract_members", "contract_values", "contract_goodput", "contract_targets",
		"compare", "explain", "explain_records", "explain_components", "explain_pick", "clock_offsets",
		"periods",
	} {
		q, err := Get(name)
		if err != nil {
			t.Errorf("Get(%q): %v", name, err)
			continue
		}
		if !strings.Contains(strings.ToUpper(q), "SELECT") {
			t.Errorf("query %q has no SELECT", name)
		}
	}
}

func TestGetUnknown(t *testing.T) {
	t.Parallel()
	_, err := Get("no_such_query")
	if err == nil || !strings.Contains(err.Error(), "requests") {
		t.Errorf("Get(unknown) error = %v, want one listing the known queries", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("MustGet(unknown) did not panic")
		}
	}()
	MustGet("no_such_query")
}

// The duplicate/retry rule is stated in the requests steps' comments.
func TestRequestsDocumentsDedupRule(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for _, st := range mustSteps(t) {
		all.WriteString(st.SQL)
	}
	for _, s := range []string{"Exact duplicates", "latest attempt", "client_records"} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("the requests steps lack %q", s)
		}
	}
}

// Raw rejected lines may hold prompts: no query, nor step, may read them.
func TestNoQueryReadsRawText(t *testing.T) {
	t.Parallel()
	texts := map[string]string{}
	for _, n := range Names() {
		texts[n+".sql"] = MustGet(n)
	}
	for _, st := range mustSteps(t) {
		texts[st.File] = st.SQL
	}
	for n, text := range texts {
		var code []string
		for _, l := range strings.Split(text, "\n") {
			code = append(code, strings.SplitN(l, "--", 2)[0])
		}
		if strings.Contains(strings.Join(code, "\n"), "raw") {
			t.Errorf("query %s mentions raw", n)
		}
	}
}

// TestTierTemplates: the requests steps take each tier's deduplication,
// source numbering and retry choice from tier.sql.tmpl: each of those
// steps, once per tier, is its header and one call of the block of its
// name, which Steps expands into the statement that creates the table the
// later steps read.
func TestTierTemplates(t *testing.T) {
	t.Parallel()
	steps := mustSteps(t)
	by := map[string]Step{}
	for _, st := range steps {
		if strings.Contains(st.SQL, "{{") || strings.Contains(st.SQL, "}}") {
			t.Errorf("%s: a template action left unexpanded", st.File)
		}
		by[st.Writes] = st
	}
	want := map[string][]string{
		"client":  {"files", "h", "dup", "drop", "u", "shared", "refn", "n", "multi", "win"},
		"gateway": {"files", "h", "dup", "drop", "u", "shared", "refn", "n", "multi", "win"},
		"server":  {"files", "h", "dup", "drop", "u", "multi", "win"},
	}
	for tier, blocks := range want {
		for _, b := range blocks {
			st, ok := by[tier+"_"+b]
			if !ok {
				t.Errorf("no step writes %s_%s", tier, b)
				continue
			}
			raw, err := files.ReadFile(st.File)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(raw), "{{template \"tier_"+b+"\" (dict \"T\" \""+tier+"\""); n != 1 ||
				strings.Contains(strings.ReplaceAll(string(raw), "{{template", ""), "SELECT") {
				t.Errorf("%s: not one call of tier_%s for the %s tier, and no SQL of its own", st.File, b, tier)
			}
		}
	}
	// No other step holds a block of tier.sql.tmpl's SQL: the exact
	// duplicates are dropped in the tier_drop steps only.
	for _, st := range steps {
		if strings.Contains(st.SQL, "unnest(rids[2:])") && !strings.HasSuffix(st.Writes, "_drop") {
			t.Errorf("%s holds tier_drop's SQL", st.File)
		}
	}
	// The retry choice orders by each tier's own start: the server's arrival.
	if !strings.Contains(by["server_win"].SQL, "FROM server_u SEMI JOIN server_multi USING (request_id)\nQUALIFY row_number() OVER (\n    PARTITION BY request_id\n    ORDER BY arrival_time DESC") {
		t.Error("requests: server_win does not rank the server's records by arrival")
	}
	if _, err := dict("T"); err == nil {
		t.Error("dict with an odd number of arguments: no error")
	}
}

// mustSteps returns the steps of queries/requests/.
func mustSteps(t *testing.T) []Step {
	t.Helper()
	steps, err := Steps("requests")
	if err != nil {
		t.Fatal(err)
	}
	return steps
}
