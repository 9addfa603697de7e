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
		"requests", "coverage", "anomalies", "rejects", "slices", "slowest",
		"slice_dists", "slice_components", "slice_ttft_components",
		"phases", "replicas", "timeseries",
		"slice_ci_groups", "slice_ci_values", "timeseries_ci_groups", "timeseries_ci_values", "pct_ci",
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

// The duplicate/retry rule is quoted from the top of requests.sql.
func TestRequestsDocumentsDedupRule(t *testing.T) {
	t.Parallel()
	q := MustGet("requests")
	for _, s := range []string{"Exact duplicates", "latest attempt", "client_records"} {
		if !strings.Contains(q, s) {
			t.Errorf("requests.sql header lacks %q", s)
		}
	}
}

// Raw rejected lines may hold prompts: no query may read them.
func TestNoQueryReadsRawText(t *testing.T) {
	t.Parallel()
	for _, n := range Names() {
		var code []string
		for _, l := range strings.Split(MustGet(n), "\n") {
			code = append(code, strings.SplitN(l, "--", 2)[0])
		}
		if strings.Contains(strings.Join(code, "\n"), "raw") {
			t.Errorf("query %s mentions raw", n)
		}
	}
}

// TestTierTemplates: requests.sql takes each tier's deduplication, source
// numbering and retry choice from tier.sql.tmpl, and Get expands them all,
// once per tier, into the CTEs the later steps read.
func TestTierTemplates(t *testing.T) {
	t.Parallel()
	q, err := Get("requests")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(q, "{{") || strings.Contains(q, "}}") {
		t.Fatal("requests: a template action left unexpanded")
	}
	want := map[string][]string{
		"client":  {"files", "h", "dup", "drop", "u", "shared", "refn", "n", "multi", "win"},
		"gateway": {"files", "h", "dup", "drop", "u", "shared", "refn", "n", "multi", "win"},
		"server":  {"files", "h", "dup", "drop", "u", "multi", "win"},
	}
	for tier, ctes := range want {
		for _, c := range ctes {
			if n := strings.Count(q, "\n"+tier+"_"+c+" AS MATERIALIZED (") + strings.Count(q, "\n"+tier+"_"+c+" AS NOT MATERIALIZED ("); n != 1 {
				t.Errorf("requests: %s_%s defined %d times, want 1", tier, c, n)
			}
		}
	}
	// The retry choice orders by each tier's own start: the server's arrival.
	if !strings.Contains(q, "FROM server_u SEMI JOIN server_multi USING (request_id)\n    QUALIFY row_number() OVER (\n        PARTITION BY request_id\n        ORDER BY arrival_time DESC") {
		t.Error("requests: server_win does not rank the server's records by arrival")
	}
	if _, err := dict("T"); err == nil {
		t.Error("dict with an odd number of arguments: no error")
	}
}
