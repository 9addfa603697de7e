package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRealIngressNginx: ingress-nginx's lines (testdata/real/nginx), read
// with its default log-format-upstream, give one row per line whose
// request ID is the $req_id at the end of the line, with the figures
// worked out by hand:
//   - line 1: [07/Feb/2020:11:48:51 +0000] = 1581076131 s (End, whole
//     seconds: the format has no $msec), $request_time 0.001 → Start
//     1581076130.999 s; $upstream_response_time 0.000 → UpstreamStart =
//     UpstreamEnd = End; status 200, route /products, upstream
//     172.17.0.5:8080, one attempt, ID 529a007902362a5f51385a5fa7049884.
//   - line 5: a malformed request line NGINX answered 400 without an
//     upstream ("[] [] - - - -"): the row keeps its ID and status, and has
//     no upstream, attempt or upstream times.
//   - line 19: the query string (?address=…) is not in the route.
func TestRealIngressNginx(t *testing.T) {
	t.Parallel()
	in := Input{Tier: Gateway, Format: "nginx", Pattern: filepath.Join("..", "testdata", "real", "nginx", "filebeat_ingress_controller.log")}
	got := readInput(t, in, map[string]string{"nginx-format": ingressNginxUpstreamInfo}, t.TempDir(), "nginx")
	if len(got.rows) != 22 || got.stats.Rejected != 0 {
		t.Fatalf("%d rows, %+v; want 22 rows and no reject", len(got.rows), got.stats)
	}
	rows := make([]GatewayRow, len(got.rows))
	for i, r := range got.rows {
		if err := json.Unmarshal([]byte(r.json), &rows[i]); err != nil {
			t.Fatal(err)
		}
		if len(rows[i].RequestID) != 32 {
			t.Errorf("line %d: request ID %q, want the line's 32-hex $req_id", r.line, rows[i].RequestID)
		}
	}
	first, bad, query := rows[0], rows[4], rows[18]
	for name, c := range map[string]struct{ got, want any }{
		"request ID":       {first.RequestID, "529a007902362a5f51385a5fa7049884"},
		"end":              {first.End, int64(1581076131_000_000_000)},
		"start":            {first.Start, int64(1581076130_999_000_000)},
		"upstream start":   {first.UpstreamStart, first.End},
		"upstream end":     {first.UpstreamEnd, first.End},
		"status":           {first.Status, int32(200)},
		"route":            {first.Route, "/products"},
		"upstream":         {first.Upstream, "172.17.0.5:8080"},
		"attempts":         {deref(first.Attempts), int32(1)},
		"400 request ID":   {bad.RequestID, "4c7d2079340e68353c7d0dfff00b904b"},
		"400 status":       {bad.Status, int32(400)},
		"400 upstream":     {bad.Upstream == "" && bad.Attempts == nil && bad.UpstreamStart == 0 && bad.UpstreamEnd == 0, true},
		"query route":      {query.Route, "/products/42"},
		"query not kept":   {strings.Contains(got.rows[18].json, "delhi"), false},
		"query upstream":   {query.Upstream, "172.17.0.5:8080"},
		"query request ID": {query.RequestID, "9a7babf34ca4ee59d90ac48d452a9214"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
}

// TestRealKubectlPrefixNginx: two NGINX replicas as `kubectl logs --prefix`
// printed them (testdata/real/collectors/nginx_kubectl_prefix.log): the
// "[pod/NAME/CONTAINER] " prefix is found by itself and removed, and each
// line, read with NGINX's main format, gives one row with the figures read
// by hand: End the $time_local of the line, [22/Nov/2020:17:19:05 +0000]
// = 1606065545 s and [22/Nov/2020:17:22:01 +0000] = 1606065721 s (whole
// seconds); no Start (the format logs no $request_time); status 200;
// routes /test and /anothertest; no request ID (main logs none) and no
// trace of the pod names, which were the prefix.
func TestRealKubectlPrefixNginx(t *testing.T) {
	t.Parallel()
	in := Input{Tier: Gateway, Format: "nginx", Pattern: filepath.Join("..", "testdata", "real", "collectors", "nginx_kubectl_prefix.log")}
	got := readInput(t, in, map[string]string{"nginx-format": nginxMain}, t.TempDir(), "kubectl")
	if len(got.rows) != 2 || got.stats.Rejected != 0 || got.stats.Prefix != "kubectl" {
		t.Fatalf("%d rows, %+v; want 2 rows, no reject, prefix kubectl", len(got.rows), got.stats)
	}
	var rows [2]GatewayRow
	for i, r := range got.rows {
		if err := json.Unmarshal([]byte(r.json), &rows[i]); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.json, "pod/") || strings.Contains(r.json, "echo-req") {
			t.Errorf("line %d: the row holds the kubectl prefix: %s", r.line, r.json)
		}
	}
	for name, c := range map[string]struct{ got, want any }{
		"line 1 end":    {rows[0].End, int64(1606065545_000_000_000)},
		"line 2 end":    {rows[1].End, int64(1606065721_000_000_000)},
		"no start":      {rows[0].Start == 0 && rows[1].Start == 0, true},
		"line 1 route":  {rows[0].Route, "/test"},
		"line 2 route":  {rows[1].Route, "/anothertest"},
		"status":        {rows[0].Status == 200 && rows[1].Status == 200, true},
		"no request ID": {rows[0].RequestID == "" && rows[1].RequestID == "", true},
		"lines":         {[2]int64{got.rows[0].line, got.rows[1].line}, [2]int64{1, 2}},
	} {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	// Read as it stands, the prefix makes every line a reject.
	m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: t.TempDir(), Prefix: PrefixNone,
		FormatOptions: map[string]string{"nginx-format": nginxMain}})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Files[0]; f.Rows != 0 || f.Rejected != 2 || f.Prefix != "" {
		t.Errorf("with no prefix stripped: %+v, want 2 rejects and no rows", f)
	}
}

// TestRealCRIIngressNginx: ingress-nginx's lines in a CRI log file
// (testdata/real/collectors/ingress_nginx_cri_crowdsec.log) are read with
// its default log-format-upstream once the prefix, found by itself, is
// removed. Its second line is tagged stderr P and the third stdout F: the
// third is of the other stream, so it does not continue the second, and
// each of the three lines gives its row. By hand: End the $time_local,
// [28/Jan/2022:16:04:05 +0000] = 2022-01-28 = day 18993 + 27 = 19020 since
// 1970, 19020·86400 + 16·3600 + 4·60 + 5 = 1643385845 s; $request_time
// and $upstream_response_time 0.000, so Start, UpstreamStart and
// UpstreamEnd are End; status 200, route /, upstream 10.244.0.9:5678, and
// the request ID of each line its $req_id. The collector's times are the
// prefix's, and each is after the line's own second: 413.656027 ms,
// 673.552828 ms and 919.698406 ms after 16:04:05.
func TestRealCRIIngressNginx(t *testing.T) {
	t.Parallel()
	path := filepath.Join("..", "testdata", "real", "collectors", "ingress_nginx_cri_crowdsec.log")
	in := Input{Tier: Gateway, Format: "nginx", Pattern: path}
	got := readInput(t, in, map[string]string{"nginx-format": ingressNginxUpstreamInfo}, t.TempDir(), "cri")
	if len(got.rows) != 3 || got.stats.Rejected != 0 || got.stats.Prefix != "cri" || got.stats.Lines != 3 || got.stats.Blank != 0 {
		t.Fatalf("%d rows, %+v; want 3 rows of 3 lines, no reject, no blank, prefix cri", len(got.rows), got.stats)
	}
	ids := []string{"c99400a4db42e32187a3cbda00920e41", "1817d7f2d3167a39badb6c3ea3a9072c", "6dcb7f7507726de0279495d7ade442ca"}
	const end = int64(1643385845_000_000_000)
	for i, r := range got.rows {
		var row GatewayRow
		if err := json.Unmarshal([]byte(r.json), &row); err != nil {
			t.Fatal(err)
		}
		if r.line != int64(i+1) || row.RequestID != ids[i] || row.End != end || row.Start != end ||
			row.UpstreamStart != end || row.UpstreamEnd != end || row.Status != 200 || row.Route != "/" ||
			row.Upstream != "10.244.0.9:5678" || deref(row.Attempts) != any(int32(1)) {
			t.Errorf("line %d: %s; want ID %s, start = end = upstream times = %d, 200, /, 10.244.0.9:5678, one attempt",
				r.line, r.json, ids[i], end)
		}
		if strings.Contains(r.json, "stdout") || strings.Contains(r.json, "stderr") {
			t.Errorf("line %d: the row holds the CRI prefix: %s", r.line, r.json)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	times, prefix := lineTimes(t, string(data))
	own := time.Date(2022, 1, 28, 16, 4, 5, 0, time.UTC)
	lags := []time.Duration{413656027, 673552828, 919698406}
	if prefix != "cri" || len(times) != len(lags) {
		t.Fatalf("prefix %q, times %q", prefix, times)
	}
	for i, lag := range lags {
		want := fmt.Sprintf("%d:%s", i+1, own.Add(lag).Format(time.RFC3339Nano))
		if times[i] != want {
			t.Errorf("collector's time %s, want %s", times[i], want)
		}
	}
	// Read as it stands, the prefix makes every line a reject.
	m, err := Run(context.Background(), Options{Inputs: []Input{in}, Out: t.TempDir(), Prefix: PrefixNone,
		FormatOptions: map[string]string{"nginx-format": ingressNginxUpstreamInfo}})
	if err != nil {
		t.Fatal(err)
	}
	if f := m.Files[0]; f.Rows != 0 || f.Rejected != 3 || f.Prefix != "" {
		t.Errorf("with no prefix stripped: %+v, want 3 rejects and no rows", f)
	}
}
