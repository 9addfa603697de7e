package report

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
)

// SchemaVersion is the version of report.json's layout
// (docs/report.schema.json). It changes when a field is removed, renamed or
// changes meaning; new fields may be added within a version.
const SchemaVersion = "1"

// jsonReport is report.json: the figures of the report as numbers, null
// where the report shows none (no samples, or too few for the percentile).
type jsonReport struct {
	SchemaVersion string          `json:"schema_version"`
	By            []string        `json:"by"`
	Window        *jsonWindow     `json:"window"` // --from/--to; null for the whole store
	DataQuality   jsonDataQuality `json:"data_quality"`
	Headlines     []jsonHeadline  `json:"headlines"`
	Slices        []jsonSlice     `json:"slices"`
	Phases        []jsonPhase     `json:"phases"`
	Contract      *jsonContract   `json:"contract"` // null without --contract
}

// jsonWindow is a window of request starts in RFC 3339, null when unknown.
type jsonWindow struct {
	First *string `json:"first"`
	Last  *string `json:"last"`
}

type jsonHeadline struct {
	Topic string `json:"topic"`
	Text  string `json:"text"`
}

type jsonCoverage struct {
	Requests      int64 `json:"requests"`
	Client        int64 `json:"client"`
	Gateway       int64 `json:"gateway"`
	Server        int64 `json:"server"`
	ClientGateway int64 `json:"client_gateway"`
	GatewayServer int64 `json:"gateway_server"`
	ClientServer  int64 `json:"client_server"`
	AllTiers      int64 `json:"all_tiers"`
}

type jsonRejects struct {
	Tier  string `json:"tier"`
	File  string `json:"file"`
	Kind  string `json:"kind"`
	Lines int64  `json:"lines"`
}

type jsonAnomaly struct {
	Reason   string `json:"reason"`
	Requests int64  `json:"requests"`
}

// jsonInput is one ingested file of the manifest.
type jsonInput struct {
	Tier       string `json:"tier"`
	Format     string `json:"format"`
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
	Lines      int64  `json:"lines"`
	Rows       int64  `json:"rows"`
	Rejected   int64  `json:"rejected"`
	Duplicates int64  `json:"duplicates"`
	Blank      int64  `json:"blank"`
	// Incomplete: not read to its end; Failed: read with an error (its
	// format not told, no rows). The report says why.
	Incomplete bool `json:"incomplete"`
	Failed     bool `json:"failed"`
}

type jsonDataQuality struct {
	Inputs        []jsonInput   `json:"inputs"`
	Coverage      jsonCoverage  `json:"coverage"`
	Rejected      int64         `json:"rejected"` // rejected lines, all files
	Rejects       []jsonRejects `json:"rejects"`
	Anomalous     int64         `json:"anomalous"`
	Anomalies     []jsonAnomaly `json:"anomalies"`
	Retried       int64         `json:"retried"`
	Aborted       int64         `json:"aborted"`
	Findings      []string      `json:"findings"` // the report's sentences about the data
	InputLines    int64         `json:"input_lines"`
	InputRows     int64         `json:"input_rows"`
	InputsNotRead int64         `json:"inputs_not_read"` // files whose reading stopped before their end
}

// jsonInterval is the 95% confidence interval of a percentile; null
// bounds where it is open.
type jsonInterval struct {
	Lo *float64 `json:"lo"`
	Hi *float64 `json:"hi"`
}

// jsonDist is one distribution: the percentiles the report shows, null
// where it shows none; TooSmall names those left out for too few samples.
type jsonDist struct {
	Unit        string        `json:"unit"`
	N           int64         `json:"n"`
	P50         *float64      `json:"p50"`
	P90         *float64      `json:"p90"`
	P95         *float64      `json:"p95"`
	P99         *float64      `json:"p99"`
	P95Interval *jsonInterval `json:"p95_interval"`
	P99Interval *jsonInterval `json:"p99_interval"`
	TooSmall    []string      `json:"too_small"`
}

// jsonComponent is one part of the latency attribution.
type jsonComponent struct {
	Name        string        `json:"name"`
	Unit        string        `json:"unit"`
	N           int64         `json:"n"`
	P50         *float64      `json:"p50"`
	P95         *float64      `json:"p95"`
	P95Interval *jsonInterval `json:"p95_interval"`
	TooSmall    []string      `json:"too_small"`
	TailN       int64         `json:"tail_n"`
	TailMean    *float64      `json:"tail_mean"`
	// NotSplit names the components a not-split time stands for, Missing
	// the tier whose record is missing; null for a component of its own.
	NotSplit *string  `json:"not_split"`
	Missing  *string  `json:"missing"`
	Formats  []string `json:"formats"`
}

type jsonOutcome struct {
	Outcome  string `json:"outcome"`
	Requests int64  `json:"requests"`
}

type jsonErrors struct {
	Unit      string        `json:"unit"` // "share"
	Rate      *float64      `json:"rate"` // failed / requests; null without requests
	Failed    int64         `json:"failed"`
	Succeeded int64         `json:"succeeded"`
	ByStatus  []jsonOutcome `json:"by_status"`
}

type jsonServiceTPS struct {
	Unit                  string   `json:"unit"`
	Value                 *float64 `json:"value"`
	CompletedRequests     int64    `json:"completed_requests"`
	CompletedOutputTokens int64    `json:"completed_output_tokens"`
	WindowS               *float64 `json:"window_s"`
}

type jsonMetrics struct {
	ClientE2E           jsonDist `json:"client_e2e"`
	GatewayE2E          jsonDist `json:"gateway_e2e"`
	ServerE2E           jsonDist `json:"server_e2e"`
	ClientTTFT          jsonDist `json:"client_ttft"`
	ServerTTFT          jsonDist `json:"server_ttft"`
	GatewayTTFT         jsonDist `json:"gateway_ttft"`
	GatewayUpstreamTTFB jsonDist `json:"gateway_upstream_ttfb"`
	TPSUser             jsonDist `json:"tps_user"`
}

type jsonComponents struct {
	E2E       []jsonComponent `json:"e2e"`
	E2ESplit  []jsonComponent `json:"e2e_split"`
	TTFT      []jsonComponent `json:"ttft"`
	TTFTSplit []jsonComponent `json:"ttft_split"`
}

type jsonSlice struct {
	Label      string             `json:"label"`
	All        bool               `json:"all"`
	Values     map[string]*string `json:"values"` // per --by column; null for NULL
	Requests   int64              `json:"requests"`
	Window     jsonWindow         `json:"window"`
	Errors     jsonErrors         `json:"errors"`
	Metrics    jsonMetrics        `json:"metrics"`
	ServiceTPS jsonServiceTPS     `json:"service_tps"`
	Components jsonComponents     `json:"components"`
}

type jsonPhaseMetrics struct {
	ClientE2E          jsonDist `json:"client_e2e"`
	ClientTTFT         jsonDist `json:"client_ttft"`
	Network            jsonDist `json:"network"`
	Application        jsonDist `json:"application"`
	Queue              jsonDist `json:"queue"`
	Model              jsonDist `json:"model"`
	ModelPerToken      jsonDist `json:"model_per_token"`
	Upstream           jsonDist `json:"upstream"`
	NetworkApplication jsonDist `json:"network_application"`
	Unsplit            jsonDist `json:"unsplit"`
}

type jsonPhase struct {
	Name     string           `json:"name"`
	Requests int64            `json:"requests"`
	Episodes int64            `json:"episodes"`
	Window   jsonWindow       `json:"window"`
	Metrics  jsonPhaseMetrics `json:"metrics"`
}

type jsonContract struct {
	File  string     `json:"file"`
	Cases []jsonCase `json:"cases"`
}

type jsonCase struct {
	UseCase     string           `json:"use_case"`
	Slice       *string          `json:"slice"` // null for the whole use case
	Match       string           `json:"match"`
	Verdict     string           `json:"verdict"`
	Requests    int64            `json:"requests"`
	Completed   int64            `json:"completed"`
	Window      jsonWindow       `json:"window"`
	Constraints []jsonConstraint `json:"constraints"`
	Goodput     *jsonGoodput     `json:"goodput"` // null without per-request targets
}

type jsonConstraint struct {
	Name       string        `json:"name"`
	Kind       string        `json:"kind"`
	Metric     string        `json:"metric"`
	Percentile *float64      `json:"percentile"`
	Eval       *string       `json:"eval"`
	Op         string        `json:"op"`
	Target     float64       `json:"target"`
	Unit       string        `json:"unit"`
	N          int64         `json:"n"`
	K          *int64        `json:"k"`
	Value      *float64      `json:"value"`
	Interval   *jsonInterval `json:"interval"`
	Verdict    string        `json:"verdict"`
	Decided    *bool         `json:"decided"`
}

type jsonGoodput struct {
	Unit     string        `json:"unit"` // "share"
	Share    *float64      `json:"share"`
	Interval *jsonInterval `json:"interval"`
	PerS     *float64      `json:"per_s"`
	Good     int64         `json:"good"`
	Missed   int64         `json:"missed"`
	Unknown  int64         `json:"unknown"`
	Error    int64         `json:"error"`
}

// rfc3339 formats t in UTC with milliseconds; nil stays nil.
func rfc3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	return &s
}

func window(first, last *time.Time) jsonWindow {
	return jsonWindow{First: rfc3339(first), Last: rfc3339(last)}
}

func jsonCI(ci analyze.Interval) *jsonInterval {
	if ci.Lo == nil && ci.Hi == nil {
		return nil
	}
	return &jsonInterval{Lo: ci.Lo, Hi: ci.Hi}
}

var pctNames = [4]string{"p50", "p90", "p95", "p99"}

// newJSONDist keeps what the report shows: a percentile with too few
// samples is null and named in too_small, and so is its interval.
func newJSONDist(d analyze.Dist, unit string) jsonDist {
	j := jsonDist{Unit: unit, N: d.N, TooSmall: []string{}}
	ps := [4]*float64{d.P50, d.P90, d.P95, d.P99}
	out := [4]**float64{&j.P50, &j.P90, &j.P95, &j.P99}
	for i, p := range ps {
		if d.Small[i] {
			j.TooSmall = append(j.TooSmall, pctNames[i])
			continue
		}
		*out[i] = p
	}
	if !d.Small[2] {
		j.P95Interval = jsonCI(d.P95CI)
	}
	if !d.Small[3] {
		j.P99Interval = jsonCI(d.P99CI)
	}
	return j
}

func newJSONComponents(cs []analyze.Component) []jsonComponent {
	out := []jsonComponent{}
	for _, c := range cs {
		j := jsonComponent{Name: c.Name, Unit: "ms", N: c.N, TooSmall: []string{},
			TailN: c.TailN, TailMean: c.TailMean, Formats: c.Formats}
		if j.Formats == nil {
			j.Formats = []string{}
		}
		if c.Small[0] {
			j.TooSmall = append(j.TooSmall, "p50")
		} else {
			j.P50 = c.P50
		}
		if c.Small[1] {
			j.TooSmall = append(j.TooSmall, "p95")
		} else {
			j.P95 = c.P95
			j.P95Interval = jsonCI(c.P95CI)
		}
		if c.NotSplit != "" {
			j.NotSplit = &c.NotSplit
			j.Missing = &c.Missing
		}
		out = append(out, j)
	}
	return out
}

func newJSONSlice(s analyze.Slice, by []string) jsonSlice {
	j := jsonSlice{Label: s.Label, All: s.All, Values: map[string]*string{}, Requests: s.Requests,
		Window: window(s.WindowFirst, s.WindowLast)}
	for i, b := range by {
		if s.All || i >= len(s.Values) || s.Values[i] == "(none)" {
			j.Values[b] = nil
			continue
		}
		v := s.Values[i]
		j.Values[b] = &v
	}
	j.Errors = jsonErrors{Unit: "share", Failed: s.Failed, Succeeded: s.Succeeded, ByStatus: []jsonOutcome{}}
	if s.Requests > 0 {
		r := float64(s.Failed) / float64(s.Requests)
		j.Errors.Rate = &r
	}
	for _, f := range s.Failures {
		j.Errors.ByStatus = append(j.Errors.ByStatus, jsonOutcome{Outcome: f.Outcome, Requests: f.Requests})
	}
	j.Metrics = jsonMetrics{
		ClientE2E:           newJSONDist(s.ClientE2E, "ms"),
		GatewayE2E:          newJSONDist(s.GatewayE2E, "ms"),
		ServerE2E:           newJSONDist(s.ServerE2E, "ms"),
		ClientTTFT:          newJSONDist(s.ClientTTFT, "ms"),
		ServerTTFT:          newJSONDist(s.ServerTTFT, "ms"),
		GatewayTTFT:         newJSONDist(s.GatewayTTFT, "ms"),
		GatewayUpstreamTTFB: newJSONDist(s.GatewayUpstreamTTFB, "ms"),
		TPSUser:             newJSONDist(s.TPSUser, "tok/s"),
	}
	j.ServiceTPS = jsonServiceTPS{Unit: "tok/s", Value: s.ServiceTPS, CompletedRequests: s.CompletedRequests,
		CompletedOutputTokens: s.CompletedOutputTokens, WindowS: s.WindowS}
	j.Components = jsonComponents{
		E2E:       newJSONComponents(s.E2E),
		E2ESplit:  newJSONComponents(s.ServerSplit),
		TTFT:      newJSONComponents(s.TTFT),
		TTFTSplit: newJSONComponents(s.TTFTSplit),
	}
	return j
}

func newJSONContract(c *analyze.ContractResult) *jsonContract {
	if c == nil {
		return nil
	}
	j := &jsonContract{File: c.File, Cases: []jsonCase{}}
	for _, cr := range c.Cases {
		jc := jsonCase{UseCase: cr.Name, Match: cr.Match, Verdict: cr.Verdict, Requests: cr.Requests,
			Completed: cr.Completed, Window: window(cr.WindowFirst, cr.WindowLast), Constraints: []jsonConstraint{}}
		if cr.Slice != "" {
			s := cr.Slice
			jc.Slice = &s
		}
		for _, k := range cr.Constraints {
			jc.Constraints = append(jc.Constraints, newJSONConstraint(k))
		}
		if g := cr.Goodput; g.Targets > 0 {
			jc.Goodput = &jsonGoodput{Unit: "share", Share: g.Share, Interval: jsonCI(analyze.Interval{Lo: g.Lo, Hi: g.Hi}),
				PerS: g.PerS, Good: g.Good, Missed: g.Missed, Unknown: g.Unknown, Error: g.Error}
		}
		j.Cases = append(j.Cases, jc)
	}
	return j
}

// newJSONConstraint is one constraint as judged on one set of requests.
func newJSONConstraint(k analyze.ConstraintResult) jsonConstraint {
	jk := jsonConstraint{Name: constraintName(k), Kind: k.Kind, Metric: k.Metric, Op: k.Op, Target: k.Target,
		Unit: k.Unit, N: k.N, K: k.K, Value: k.Value, Verdict: k.Verdict, Decided: k.Decided,
		Interval: jsonCI(analyze.Interval{Lo: k.CILo, Hi: k.CIHi})}
	if k.Percentile > 0 {
		p := k.Percentile
		jk.Percentile = &p
	}
	if k.Eval != "" {
		e := k.Eval
		jk.Eval = &e
	}
	return jk
}

// newJSONReport builds report.json from r and its trend's comparison.
func newJSONReport(r *analyze.Result, trend *compare.TrendComparison) *jsonReport {
	said := Say(r, trend)
	j := &jsonReport{SchemaVersion: SchemaVersion, By: r.By, Headlines: []jsonHeadline{},
		Slices: []jsonSlice{}, Phases: []jsonPhase{}, Contract: newJSONContract(r.Contract)}
	if j.By == nil {
		j.By = []string{}
	}
	if !r.Window.IsZero() {
		from, to := r.Window.From, r.Window.To
		j.Window = &jsonWindow{}
		if !from.IsZero() {
			j.Window.First = rfc3339(&from)
		}
		if !to.IsZero() {
			j.Window.Last = rfc3339(&to)
		}
	}
	c := r.Coverage
	j.DataQuality = jsonDataQuality{
		Coverage: jsonCoverage{Requests: c.Requests, Client: c.Client, Gateway: c.Gateway, Server: c.Server,
			ClientGateway: c.ClientGateway, GatewayServer: c.GatewayServer, ClientServer: c.ClientServer, AllTiers: c.AllTiers},
		Rejected: r.RejectsTotal, Rejects: []jsonRejects{}, Anomalous: r.Anomalous, Anomalies: []jsonAnomaly{},
		Retried: r.Retried, Aborted: r.Aborted.Requests, Findings: said.DataQuality,
		InputLines: r.Inputs.Total.Lines, InputRows: r.Inputs.Total.Rows, InputsNotRead: int64(len(r.Inputs.NotRead())),
	}
	j.DataQuality.Inputs = []jsonInput{}
	for _, f := range r.Inputs.Files {
		j.DataQuality.Inputs = append(j.DataQuality.Inputs, jsonInput{Tier: f.Tier, Format: f.Format, Path: f.Path,
			Bytes: f.Bytes, Lines: f.Lines, Rows: f.Rows, Rejected: f.Rejected, Duplicates: f.Duplicates, Blank: f.Blank,
			Incomplete: f.Incomplete, Failed: f.Error != "" && !f.Incomplete})
	}
	if j.DataQuality.Findings == nil {
		j.DataQuality.Findings = []string{}
	}
	for _, g := range r.Rejects {
		j.DataQuality.Rejects = append(j.DataQuality.Rejects, jsonRejects{Tier: g.Tier, File: g.File, Kind: g.Kind, Lines: g.Lines})
	}
	for _, a := range r.Anomalies {
		j.DataQuality.Anomalies = append(j.DataQuality.Anomalies, jsonAnomaly{Reason: a.Reason, Requests: a.Requests})
	}
	for _, h := range said.Headlines {
		j.Headlines = append(j.Headlines, jsonHeadline(h))
	}
	for _, s := range r.Slices {
		j.Slices = append(j.Slices, newJSONSlice(s, r.By))
	}
	for _, p := range r.Phases {
		j.Phases = append(j.Phases, jsonPhase{Name: p.Name, Requests: p.Requests, Episodes: p.Episodes,
			Window: window(p.WindowFirst, p.WindowLast),
			Metrics: jsonPhaseMetrics{
				ClientE2E:          newJSONDist(p.ClientE2E, "ms"),
				ClientTTFT:         newJSONDist(p.ClientTTFT, "ms"),
				Network:            newJSONDist(p.Network, "ms"),
				Application:        newJSONDist(p.Application, "ms"),
				Queue:              newJSONDist(p.Queue, "ms"),
				Model:              newJSONDist(p.Model, "ms"),
				ModelPerToken:      newJSONDist(p.ModelPerToken, "ms"),
				Upstream:           newJSONDist(p.Upstream, "ms"),
				NetworkApplication: newJSONDist(p.NetworkApplication, "ms"),
				Unsplit:            newJSONDist(p.Unsplit, "ms"),
			}})
	}
	return j
}

// renderJSON writes report.json, indented, with a final newline.
func renderJSON(w io.Writer, r *analyze.Result, trend *compare.TrendComparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(newJSONReport(r, trend))
}

// csvMetrics are the distributions of slices.csv, in column order.
var csvMetrics = []struct {
	name string
	get  func(analyze.Slice) analyze.Dist
}{
	{"client_e2e", func(s analyze.Slice) analyze.Dist { return s.ClientE2E }},
	{"client_ttft", func(s analyze.Slice) analyze.Dist { return s.ClientTTFT }},
	{"tps_user", func(s analyze.Slice) analyze.Dist { return s.TPSUser }},
	{"gateway_e2e", func(s analyze.Slice) analyze.Dist { return s.GatewayE2E }},
	{"server_e2e", func(s analyze.Slice) analyze.Dist { return s.ServerE2E }},
	{"server_ttft", func(s analyze.Slice) analyze.Dist { return s.ServerTTFT }},
}

// cellText is a label from the logs as a CSV cell that a spreadsheet shows
// as text: one that begins as a formula does (=, +, -, @, a tab or a
// carriage return) gets a leading apostrophe, as OWASP advises for CSV
// injection; a model named "=HYPERLINK(…)" must never run when the file is
// opened.
func cellText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// renderCSV writes slices.csv: one row per slice, its --by values (empty
// for NULL and for all requests), requests, failed, and per metric P50,
// P95, P99 and n; a percentile the report does not show is empty.
func renderCSV(w io.Writer, r *analyze.Result) error {
	cw := csv.NewWriter(w)
	head := append([]string{"slice"}, r.By...)
	head = append(head, "requests", "failed")
	for _, m := range csvMetrics {
		head = append(head, m.name+"_p50", m.name+"_p95", m.name+"_p99", m.name+"_n")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	num := func(p *float64) string {
		if p == nil {
			return ""
		}
		return strconv.FormatFloat(*p, 'f', -1, 64)
	}
	for _, s := range r.Slices {
		j := newJSONSlice(s, r.By)
		row := []string{cellText(s.Label)}
		for _, b := range r.By {
			v := ""
			if p := j.Values[b]; p != nil {
				v = cellText(*p)
			}
			row = append(row, v)
		}
		row = append(row, strconv.FormatInt(s.Requests, 10), strconv.FormatInt(s.Failed, 10))
		for _, m := range csvMetrics {
			d := newJSONDist(m.get(s), "")
			row = append(row, num(d.P50), num(d.P95), num(d.P99), strconv.FormatInt(d.N, 10))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
