package analyze

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze/analyzetest"
	"github.com/infertrace/infertrace/internal/duck"
)

// noIDFixture is n requests logged by all three tiers, every tier's
// record with the request's ID, one every 700..900 ms, on the true
// timeline (the tiers' clocks are then shifted by analyzetest's offsets):
// the client starts c1 ms before the gateway and ends c2 ms after it; the
// gateway forwards pre ms after its start, the server receives the call h1
// ms later, queues, prefills and decodes, the gateway receives its end h2
// ms later and ends post ms after that. Requests twin and twin+1 are two
// requests in flight together, alike to the ms but for a 1 ms shift: a
// match by time cannot tell them apart.
func noIDFixture(seed uint64, n, twin int) analyzetest.Fixture {
	at := analyzetest.At
	rng := rand.New(rand.NewPCG(seed, 7))
	r := func(lo, hi int64) int64 { return lo + rng.Int64N(hi-lo+1) }
	var f analyzetest.Fixture
	var g, step int64 = 1000, 0
	for k := 0; k < n; k++ {
		c1, c2, pre, post := r(2, 20), r(2, 20), r(1, 6), r(1, 4)
		h1, h2 := r(1, 4), r(1, 4)
		q, pf, dec := r(0, 80), r(20, 200), r(200, 1500)
		if k == twin+1 {
			g -= step - 1 // one ms after the twin, with its durations
		}
		if k == 0 {
			c1, c2, pre, post, h1, h2 = 3, 4, 2, 1, 3, 2
		}
		if k == twin || k == twin+1 {
			c1, c2, pre, post, h1, h2, q, pf, dec = 5, 5, 2, 2, 2, 2, 10, 100, 800
		}
		id := fmt.Sprintf("q%02d", k)
		upStart := g + pre
		arrival := upStart + h1
		end := arrival + q + pf + dec
		upEnd := end + h2
		gEnd := upEnd + post
		f.Clients = append(f.Clients, analyzetest.Client{ID: id, Start: at(g - c1), FirstToken: at(upStart + h1 + q + pf + h2 + 1), End: at(gEnd + c2),
			Status: analyzetest.Int(200), Streamed: analyzetest.Bool(true), Line: k + 1})
		f.Gateways = append(f.Gateways, analyzetest.Gateway{ID: id, Start: at(g), UpstreamStart: at(upStart), UpstreamEnd: at(upEnd), End: at(gEnd),
			Status: analyzetest.Int(200), Upstream: "10.1.4.23:8000", Line: k + 1})
		f.Servers = append(f.Servers, analyzetest.Server{ID: id, Arrival: at(arrival), Scheduled: at(arrival + q), FirstToken: at(arrival + q + pf),
			End: at(end), Model: "m", Replica: "r1", Output: analyzetest.Int(50), Line: k + 1})
		step = r(700, 900)
		g += step
	}
	return f
}

// gatewayDerived are the components that need the gateway's record; every
// other component of a request comes from its client and server records.
var gatewayDerived = map[string]bool{"gateway_e2e_ms": true, "network_ms": true, "application_ms": true, "upstream_ms": true,
	"gateway_ttft_ms": true, "gateway_upstream_ttfb_ms": true, "ttft_network_ms": true, "ttft_application_ms": true}

// Removing the gateway's request IDs moves no time: the same requests,
// analyzed again with every gateway record's ID removed, give every request
// that still joins (its gateway record matched by time) the same
// components, to the ns; a request whose gateway record is not matched (the
// twins, two requests alike in time that a match cannot tell apart) has
// every gateway-derived component NULL, never zero and never folded into
// another, its network and application left as one "not split"
// network_application_ms equal to their sum with IDs; and its gateway
// record is counted as a request of its own that joined nothing. Request
// q00 is checked by hand.
func TestGatewayIDsRemovedMoveNoTime(t *testing.T) {
	t.Parallel()
	const n, twin = 14, 6
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			f := noIDFixture(seed, n, twin)
			_, _, want := runFixture(t, f, analyzetest.DefaultOffsets)
			for i := range f.Gateways {
				f.Gateways[i].ID = ""
			}
			_, _, got := runFixture(t, f, analyzetest.DefaultOffsets)
			if len(want) != n || len(got) != n+2 {
				for id, g := range got {
					t.Log(id, g["gateway_join"], g["gateway_source"], g["server_source"])
				}
				t.Fatalf("%d requests with IDs (want %d), %d without (want %d: the twins' gateway records apart)", len(want), n, len(got), n+2)
			}
			for id, w := range want {
				g := got[id]
				twinned := id == fmt.Sprintf("q%02d", twin) || id == fmt.Sprintf("q%02d", twin+1)
				if twinned {
					if g["gateway_join"] != nil || g["has_gateway"] != false {
						t.Errorf("%s: gateway_join %v: a twin was matched", id, g["gateway_join"])
					}
				} else if g["gateway_join"] != "time" || g["gateway_source"] != w["gateway_source"] {
					t.Errorf("%s: gateway_join %v, source %v; want time, %v", id, g["gateway_join"], g["gateway_source"], w["gateway_source"])
				}
				for col, v := range w {
					if !strings.HasSuffix(col, "_ms") {
						continue
					}
					wantV := v
					switch {
					case twinned && gatewayDerived[col]:
						wantV = nil
					case twinned && col == "network_application_ms":
						wantV = *duck.Float(w["network_ms"]) + *duck.Float(w["application_ms"])
					case twinned && col == "ttft_network_application_ms":
						wantV = *duck.Float(w["ttft_network_ms"]) + *duck.Float(w["ttft_application_ms"])
					}
					if fmt.Sprint(g[col]) != fmt.Sprint(wantV) {
						t.Errorf("%s %s = %v without gateway IDs, want %v", id, col, g[col], wantV)
					}
				}
			}
			var apart int
			for id, g := range got {
				if strings.HasPrefix(id, "unjoined:logs/gateway.log:") {
					apart++
					if g["has_client"] != false || g["has_server"] != false || g["network_ms"] != nil || g["application_ms"] != nil {
						t.Errorf("%s: an unmatched gateway record joined %v/%v, network %v, application %v", id, g["has_client"], g["has_server"], g["network_ms"], g["application_ms"])
					}
				}
			}
			if apart != 2 {
				t.Errorf("%d gateway records apart, want the 2 twins", apart)
			}
			// q00 by hand: network = c1 + c2 = 3 + 4, application = pre +
			// h1 + h2 + post = 2 + 3 + 2 + 1, however it joined.
			for _, rows := range []map[string]map[string]any{want, got} {
				checkMs(t, rows, "q00", map[string]float64{"network_ms": 7, "application_ms": 8})
			}
		})
	}
}

// What Summarize says of gateway records without a request ID: the 14 of
// noIDFixture (seed 1) without their IDs, 12 matched (all but the twins);
// and 3 NGINX records on a host of their own whose ends are whole seconds
// on the gateway's clock ($time_local: 12:00:03, :05, :07 with the
// gateway's 2.5 s offset), beside server records nothing else logs: never
// matched, counted as coarse. The Data quality sentence says so and what
// to log.
func TestGatewayNoIDSummary(t *testing.T) {
	t.Parallel()
	at := analyzetest.At
	f := noIDFixture(1, 14, 6)
	for i := range f.Gateways {
		f.Gateways[i].ID = ""
	}
	for k := int64(0); k < 3; k++ {
		end := 20500 + 2000*k
		f.Gateways = append(f.Gateways, analyzetest.Gateway{Start: at(end - 900), UpstreamStart: at(end - 895), UpstreamEnd: at(end), End: at(end),
			Status: analyzetest.Int(200), Format: "nginx", File: "logs/nginx.log", Line: int(k + 1)})
		f.Servers = append(f.Servers, analyzetest.Server{ID: fmt.Sprintf("n%d", k), Arrival: at(end - 893), Scheduled: at(end - 890),
			FirstToken: at(end - 700), End: at(end - 3), Model: "m", Replica: "r2", Line: int(15 + k)})
	}
	r := summarize(t, f)
	want := []GatewayNoID{{"native", 14, 12, 0}, {"nginx", 3, 0, 3}}
	if fmt.Sprint(r.GatewayNoID) != fmt.Sprint(want) {
		t.Errorf("GatewayNoID = %v, want %v", r.GatewayNoID, want)
	}
	for _, s := range []string{
		"14 gateway records of format native log no request ID: 12 were matched to a server record by time",
		"The requests of the 2 unmatched have no gateway time",
		"3 gateway records of format nginx log no request ID: none could be matched to a server record by time (3 of them end on whole seconds",
		"add $request_id to the NGINX log_format and pass it upstream as X-Request-Id",
	} {
		if !containsText(said(r).DataQuality, s) {
			t.Errorf("Data quality does not say %q:\n%s", s, strings.Join(said(r).DataQuality, "\n"))
		}
	}
}
