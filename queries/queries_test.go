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
