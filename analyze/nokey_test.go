package analyze

import (
	"fmt"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
)

// NGINX combined lines as ingest keeps them: no request ID, no trace, no
// start, only the end to the second. Two of them, in the same second with
// the same status and path (two requests, alike as combined logs them),
// beside a client and a server record that join by ID and an ID-less
// gateway record that has a start (a request of its own, as before). The
// combined rows are no request: 2 requests in all (r1 and the ID-less
// record with a start), the combined rows counted under gateway/nginx as
// records that joined nothing, with the sentence that says why.
func TestGatewayRowsWithoutKey(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	f := analyzetest.Fixture{
		Clients: []analyzetest.Client{{ID: "r1", Start: at(0), End: at(1000), Line: 1}},
		Gateways: []analyzetest.Gateway{
			{End: at(2000), Status: analyzetest.Int(200), Route: "/v1/chat/completions", Format: "nginx", File: "logs/combined.log", Line: 1},
			{End: at(2000), Status: analyzetest.Int(200), Route: "/v1/chat/completions", Format: "nginx", File: "logs/combined.log", Line: 2},
			{Start: at(5000), End: at(5400), Line: 3},
		},
		Servers: []analyzetest.Server{{ID: "r1", Arrival: at(20), Scheduled: at(30), FirstToken: at(100), End: at(950), Line: 1}},
	}
	_, st, rows := runFixture(t, f, analyzetest.DefaultOffsets)
	if len(rows) != 2 || st.Coverage.Requests != 2 {
		t.Fatalf("got %d requests (coverage %d), want 2: %v", len(rows), st.Coverage.Requests, rows)
	}
	for id := range rows {
		if strings.Contains(id, "combined.log") {
			t.Errorf("a combined row is a request: %s", id)
		}
	}
	r := summarize(t, f)
	want := []UnjoinedRows{
		{"client", "native", 1, 0, 0},
		{"gateway", "native", 1, 1, 0},
		{"gateway", "nginx", 2, 2, 2},
		{"server", "native", 1, 0, 0},
	}
	if fmt.Sprint(r.Unjoined) != fmt.Sprint(want) {
		t.Errorf("Unjoined = %v\nwant %v", r.Unjoined, want)
	}
	if !containsText(said(r).DataQuality, "2 gateway records of format nginx carry no request ID and no duration: NGINX's combined format logs neither") {
		t.Errorf("no finding says why the combined rows joined nothing: %q", said(r).DataQuality)
	}
	if !containsText(said(r).DataQuality, "1 of 1 gateway records of format native joined no other tier") {
		t.Errorf("the ID-less gateway record with a start is no longer counted as a request of its own: %q", said(r).DataQuality)
	}
}
