package report

import (
	"encoding/json"
	"io"
	"math"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/explain"
	"github.com/infertrace/infertrace/whatif"
)

// The JSON forms of the compare, explain and whatif pages: compare.json,
// explain.json and whatif.json, each beside its .md and .html, described by
// docs/compare.schema.json, docs/explain.schema.json and
// docs/whatif.schema.json (docs/report-json.md). Each carries the figures
// its page shows as numbers, null where the page shows none, with the n
// they rest on, their unit and, where the page gives one, their interval
// and window. Their schema_version is SchemaVersion's, and changes with
// the same rule.

// encodeJSON writes v indented, with a final newline, as report.json is.
func encodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// finite is v, or nil when v is NaN or infinite (JSON has no such number;
// the page shows "–").
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// orEmpty keeps a JSON list a list when it has nothing in it.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ---- compare.json ----

type jsonCompare struct {
	SchemaVersion string              `json:"schema_version"`
	Baseline      jsonCompareSide     `json:"baseline"`
	Target        jsonCompareSide     `json:"target"`
	By            []string            `json:"by"`
	Significant   int                 `json:"significant"` // quantile changes significant …
	Compared      int                 `json:"compared"`    // … of those compared
	Findings      []string            `json:"findings"`
	Verdict       *jsonCompareVerdict `json:"verdict"` // null without --contract
	Slices        []jsonCompareSlice  `json:"slices"`
}

// jsonCompareSide is one side: its label, directory, and either its time
// window or its column=value (null when the side is the whole directory).
type jsonCompareSide struct {
	Label    string      `json:"label"`
	Dir      string      `json:"dir"`
	Window   *jsonWindow `json:"window"`
	Column   *string     `json:"column"`
	Value    *string     `json:"value"`
	Requests int64       `json:"requests"`
}

type jsonCompareSlice struct {
	Label    string             `json:"label"`
	All      bool               `json:"all"`
	Values   map[string]*string `json:"values"`
	Baseline int64              `json:"baseline_requests"`
	Target   int64              `json:"target_requests"`
	Metrics  []jsonMetricChange `json:"metrics"`
}

type jsonMetricChange struct {
	Metric         string               `json:"metric"`
	Name           string               `json:"name"`
	Unit           string               `json:"unit"`
	HigherIsBetter bool                 `json:"higher_is_better"`
	Quantiles      []jsonQuantileChange `json:"quantiles"`
}

// jsonSideValue is one side's quantile and the samples it rests on.
type jsonSideValue struct {
	N     int64    `json:"n"`
	Value *float64 `json:"value"`
}

type jsonQuantileChange struct {
	Quantile    string        `json:"quantile"` // "p50", "p95", "p99"
	P           float64       `json:"p"`
	Baseline    jsonSideValue `json:"baseline"`
	Target      jsonSideValue `json:"target"`
	Change      *float64      `json:"change"`   // target − baseline
	Interval    *jsonInterval `json:"interval"` // 95%; null where the page shows "–"
	Significant bool          `json:"significant"`
	Strong      bool          `json:"strong"`
	TooFew      bool          `json:"too_few"`
	Mark        *string       `json:"mark"`      // the page's mark: "strong", "significant", "noise", "too few"
	Direction   *string       `json:"direction"` // "worse" or "better" for a significant change
}

type jsonCompareVerdict struct {
	File    string           `json:"file"`
	Verdict string           `json:"verdict"` // accept, reject, undecided
	Text    string           `json:"text"`
	Cases   []jsonCaseChange `json:"cases"`
}

type jsonCaseChange struct {
	UseCase      string                 `json:"use_case"`
	Match        string                 `json:"match"`
	Baseline     int64                  `json:"baseline_requests"`
	Target       int64                  `json:"target_requests"`
	Verdict      string                 `json:"verdict"`
	Reason       string                 `json:"reason"`
	QualityHolds bool                   `json:"quality_holds"`
	QualityKnown bool                   `json:"quality_known"`
	Constraints  []jsonConstraintChange `json:"constraints"`
}

type jsonConstraintChange struct {
	Name     string         `json:"name"`
	Kind     string         `json:"kind"`
	Unit     string         `json:"unit"`
	Baseline jsonConstraint `json:"baseline"`
	Target   jsonConstraint `json:"target"`
	Change   *float64       `json:"change"`
	Interval *jsonInterval  `json:"interval"`
	Allowed  float64        `json:"allowed"` // in unit; 0: none
	Status   string         `json:"status"`
	Why      *string        `json:"why"`
}

func newJSONCompareSide(s compare.CompareSide, label string, n int64) jsonCompareSide {
	j := jsonCompareSide{Label: label, Dir: s.Dir, Requests: n}
	if s.From != nil || s.To != nil {
		w := window(s.From, s.To)
		j.Window = &w
	}
	if s.Column != "" {
		j.Column, j.Value = strPtr(s.Column), &s.Value
	}
	return j
}

func newJSONCompareSlice(s compare.CompareSlice, by []string) jsonCompareSlice {
	j := jsonCompareSlice{Label: s.Label, All: s.All, Values: map[string]*string{}, Baseline: s.BaselineN,
		Target: s.TargetN, Metrics: []jsonMetricChange{}}
	vals := map[string]string{}
	for i, c := range s.Columns {
		if i < len(s.Values) {
			vals[c] = s.Values[i]
		}
	}
	for _, b := range by {
		if v, ok := vals[b]; ok && !s.All && v != "(none)" {
			j.Values[b] = &v
		} else {
			j.Values[b] = nil
		}
	}
	for _, m := range s.Metrics {
		jm := jsonMetricChange{Metric: m.Metric, Name: m.Name, Unit: m.Unit, HigherIsBetter: m.HigherIsBetter,
			Quantiles: []jsonQuantileChange{}}
		for _, q := range m.Points {
			jq := jsonQuantileChange{Quantile: "p" + quantileLabel(q)[1:], P: q.P,
				Baseline: jsonSideValue{N: q.BaselineN, Value: q.Baseline}, Target: jsonSideValue{N: q.TargetN, Value: q.Target},
				Change: q.Delta, Interval: jsonCI(analyze.Interval{Lo: q.Lo, Hi: q.Hi}),
				Significant: q.Significant, Strong: q.Strong, TooFew: q.TooFew}
			if q.Delta != nil && !q.TooFew && jq.Interval == nil {
				jq.Interval = &jsonInterval{} // the page's "open": both bounds open
			}
			mark, worse, better := changeMark(m, q)
			jq.Mark = strPtr(mark)
			switch {
			case worse:
				jq.Direction = strPtr("worse")
			case better:
				jq.Direction = strPtr("better")
			}
			jm.Quantiles = append(jm.Quantiles, jq)
		}
		j.Metrics = append(j.Metrics, jm)
	}
	return j
}

func newJSONCompare(c *compare.Comparison) *jsonCompare {
	j := &jsonCompare{SchemaVersion: SchemaVersion,
		Baseline: newJSONCompareSide(c.Baseline, c.BaselineLabel, c.BaselineN),
		Target:   newJSONCompareSide(c.Target, c.TargetLabel, c.TargetN),
		By:       orEmpty(c.By), Significant: c.Significant, Compared: c.Compared,
		Findings: orEmpty(CompareFindings(c)), Slices: []jsonCompareSlice{}}
	for _, s := range c.Slices {
		j.Slices = append(j.Slices, newJSONCompareSlice(s, j.By))
	}
	if v := c.Verdict; v != nil {
		jv := &jsonCompareVerdict{File: v.File, Verdict: v.Verdict, Text: VerdictText(v), Cases: []jsonCaseChange{}}
		for _, cc := range v.Cases {
			jc := jsonCaseChange{UseCase: cc.Name, Match: cc.Match, Baseline: cc.BaselineN, Target: cc.TargetN,
				Verdict: cc.Verdict, Reason: CaseReason(cc), QualityHolds: cc.QualityHolds, QualityKnown: cc.QualityKnown,
				Constraints: []jsonConstraintChange{}}
			for _, k := range cc.Constraints {
				jc.Constraints = append(jc.Constraints, jsonConstraintChange{Name: constraintName(k.Target), Kind: k.Kind(), Unit: k.Target.Unit,
					Baseline: newJSONConstraint(k.Baseline), Target: newJSONConstraint(k.Target),
					Change: k.Delta, Interval: jsonCI(analyze.Interval{Lo: k.Lo, Hi: k.Hi}), Allowed: k.Allowed,
					Status: k.Status, Why: strPtr(k.Why)})
			}
			jv.Cases = append(jv.Cases, jc)
		}
		j.Verdict = jv
	}
	return j
}

// ---- explain.json ----

type jsonExplain struct {
	SchemaVersion string            `json:"schema_version"`
	Dir           string            `json:"dir"`
	By            []string          `json:"by"`
	Missing       []string          `json:"missing"` // IDs asked for that no request has
	Requests      []jsonExplained   `json:"requests"`
	ClockOffsets  []jsonClockOffset `json:"clock_offsets"`
}

type jsonExplained struct {
	RequestID   string             `json:"request_id"`
	Start       *string            `json:"start"`
	Model       string             `json:"model"`
	UseCase     string             `json:"use_case"`
	Client      string             `json:"client"`
	Region      string             `json:"region"`
	Gateway     string             `json:"gateway"`
	Replica     string             `json:"replica"`
	Phase       string             `json:"phase"`
	Status      *int64             `json:"status"`
	Streamed    bool               `json:"streamed"`
	Concurrency *int64             `json:"concurrency"` // in flight on its replica at arrival
	QueueDepth  *int64             `json:"queue_depth"` // waiting in its replica's queue at arrival
	Records     jsonTierCounts     `json:"records"`
	Sources     jsonTierText       `json:"sources"` // file:line of each tier's record
	Anomaly     *string            `json:"anomaly"`
	Aborted     bool               `json:"aborted"`
	WastedMs    *float64           `json:"wasted_ms"`
	Slice       string             `json:"slice"`       // the requests it is set against
	ServerJoin  string             `json:"server_join"` // "id" or "time"
	Offsets     jsonRequestOffsets `json:"clock_offsets"`
	AboveP95    []string           `json:"above_p95"`
	Answer      jsonAnswer         `json:"answer"`
	Components  []jsonExplainComp  `json:"components"`
	Spans       []jsonSpan         `json:"spans"`
}

// jsonAnswer is the figures of the page's first sentence: the largest
// part of the request's E2E and of its TTFT (null when no TTFT figure is
// known).
type jsonAnswer struct {
	E2E  jsonBreakdown  `json:"e2e"`
	TTFT *jsonBreakdown `json:"ttft"`
}

// jsonBreakdown is explain.Breakdown: total_ms of metric total (null:
// unknown), its largest known part (top null when none), its share, and
// the time no known component holds (unknown_ms, with the components
// whose time is missing).
type jsonBreakdown struct {
	Total     string    `json:"total"`
	Unit      string    `json:"unit"`
	TotalMs   *float64  `json:"total_ms"`
	Top       *jsonPart `json:"top"`
	Share     *float64  `json:"share"`
	Sub       *jsonPart `json:"sub"` // when top is model: the larger of prefill and decode
	UnknownMs *float64  `json:"unknown_ms"`
	Unknown   []string  `json:"unknown"`
}

type jsonPart struct {
	Metric string  `json:"metric"`
	Ms     float64 `json:"ms"`
}

func newJSONBreakdown(b explain.Breakdown) jsonBreakdown {
	j := jsonBreakdown{Total: b.Total, Unit: "ms", TotalMs: b.TotalMs, Unknown: orEmpty(b.Unknown)}
	if b.Top.Metric != "" {
		j.Top = &jsonPart{Metric: b.Top.Metric, Ms: b.Top.Ms}
		if b.TotalMs != nil {
			share := b.Share
			j.Share = &share
		}
	}
	if b.Sub != nil {
		j.Sub = &jsonPart{Metric: b.Sub.Metric, Ms: b.Sub.Ms}
	}
	if b.TotalMs != nil {
		u := b.UnknownMs
		j.UnknownMs = &u
	}
	return j
}

type jsonTierCounts struct {
	Client  int64 `json:"client"`
	Gateway int64 `json:"gateway"`
	Server  int64 `json:"server"`
}

type jsonTierText struct {
	Client  *string `json:"client"`
	Gateway *string `json:"gateway"`
	Server  *string `json:"server"`
}

type jsonRequestOffsets struct {
	GatewayHost string     `json:"gateway_host"`
	Client      jsonOffset `json:"client"`
	Server      jsonOffset `json:"server"`
}

// jsonOffset is a host's clock offset against the request's gateway:
// offset_ms ± uncertainty_ms from the bounds of `bounds` requests; null
// when unknown (its boxes are not drawn).
type jsonOffset struct {
	Host          string   `json:"host"`
	Unit          string   `json:"unit"`
	OffsetMs      *float64 `json:"offset_ms"`
	UncertaintyMs *float64 `json:"uncertainty_ms"`
	Bounds        int64    `json:"bounds"`
}

// jsonExplainComp is one of the request's figures beside its slice's P50
// and P95 (null and named in too_small when from too few samples).
type jsonExplainComp struct {
	Metric   string        `json:"metric"`
	Unit     string        `json:"unit"`
	Value    *float64      `json:"value"`
	Slice    jsonSliceDist `json:"slice"`
	AboveP95 bool          `json:"above_p95"`
}

type jsonSliceDist struct {
	N        int64    `json:"n"`
	P50      *float64 `json:"p50"`
	P95      *float64 `json:"p95"`
	P95Hi    *float64 `json:"p95_hi"` // the upper bound of P95's 95% interval; null: open
	TooSmall []string `json:"too_small"`
}

type jsonSpan struct {
	Tier          string   `json:"tier"`
	Name          string   `json:"name"`
	Unit          string   `json:"unit"`
	StartMs       *float64 `json:"start_ms"`
	EndMs         *float64 `json:"end_ms"`
	UncertaintyMs *float64 `json:"uncertainty_ms"`
}

type jsonClockOffset struct {
	Tier          string   `json:"tier"`
	Host          string   `json:"host"`
	Gateway       string   `json:"gateway"`
	Minute        *string  `json:"minute"`
	Unit          string   `json:"unit"`
	NLower        int64    `json:"n_lower"`
	NUpper        int64    `json:"n_upper"`
	LowerMs       *float64 `json:"lower_ms"`
	UpperMs       *float64 `json:"upper_ms"`
	OffsetMs      *float64 `json:"offset_ms"`
	UncertaintyMs *float64 `json:"uncertainty_ms"`
	CrossedMs     *float64 `json:"crossed_ms"`
}

func newJSONOffset(host string, o explain.Offset, placed bool) jsonOffset {
	j := jsonOffset{Host: host, Unit: "ms", Bounds: o.Bounds}
	if placed {
		j.OffsetMs, j.UncertaintyMs = o.Ms, o.UncertaintyMs
	}
	return j
}

func newJSONExplain(ex *explain.Result) *jsonExplain {
	j := &jsonExplain{SchemaVersion: SchemaVersion, Dir: ex.Dir, By: orEmpty(ex.By), Missing: orEmpty(ex.Missing),
		Requests: []jsonExplained{}, ClockOffsets: []jsonClockOffset{}}
	for _, r := range ex.Requests {
		jr := jsonExplained{RequestID: r.RequestID, Start: rfc3339(r.Start), Model: r.Model, UseCase: r.UseCase,
			Client: r.Client, Region: r.Region, Gateway: r.Gateway, Replica: r.Replica, Phase: r.Phase,
			Status: r.Status, Streamed: r.Streamed, Concurrency: r.Concurrency, QueueDepth: r.QueueDepth,
			Records: jsonTierCounts{Client: r.ClientRecords, Gateway: r.GatewayRecords, Server: r.ServerRecords},
			Sources: jsonTierText{Client: strPtr(r.ClientSource), Gateway: strPtr(r.GatewaySource), Server: strPtr(r.ServerSource)},
			Anomaly: strPtr(r.Anomaly), Aborted: r.Aborted, WastedMs: r.WastedMs, Slice: r.Slice, ServerJoin: r.ServerJoin,
			Offsets: jsonRequestOffsets{GatewayHost: r.GatewayHost,
				Client: newJSONOffset(r.ClientHost, r.ClientOffset, true),
				// A server record matched by time gets no offset (tgiByTime).
				Server: newJSONOffset(r.ServerHost, r.ServerOffset, r.ServerJoin != "time")},
			AboveP95: []string{}, Components: []jsonExplainComp{}, Spans: []jsonSpan{},
			Answer: jsonAnswer{E2E: newJSONBreakdown(r.Answer.E2E)}}
		if r.Answer.TTFT != nil {
			t := newJSONBreakdown(*r.Answer.TTFT)
			jr.Answer.TTFT = &t
		}
		for _, c := range r.Components {
			jc := jsonExplainComp{Metric: c.Metric, Unit: "ms", Value: c.Value,
				Slice: jsonSliceDist{N: c.SliceN, TooSmall: []string{}}}
			if c.SliceSmall[0] {
				jc.Slice.TooSmall = append(jc.Slice.TooSmall, "p50")
			} else {
				jc.Slice.P50 = c.SliceP50
			}
			if c.SliceSmall[1] {
				jc.Slice.TooSmall = append(jc.Slice.TooSmall, "p95")
			} else {
				jc.Slice.P95 = c.SliceP95
			}
			// As the page: explain's noise rule (explain.AboveP95).
			jc.AboveP95 = c.AboveP95
			if !c.SliceSmall[1] {
				jc.Slice.P95Hi = c.SliceP95Hi
			}
			if jc.AboveP95 {
				jr.AboveP95 = append(jr.AboveP95, c.Metric)
			}
			jr.Components = append(jr.Components, jc)
		}
		for _, s := range r.Spans {
			jr.Spans = append(jr.Spans, jsonSpan{Tier: s.Tier, Name: s.Name, Unit: "ms", StartMs: s.StartMs, EndMs: s.EndMs,
				UncertaintyMs: s.UncertaintyMs})
		}
		j.Requests = append(j.Requests, jr)
	}
	for _, o := range ex.Offsets {
		j.ClockOffsets = append(j.ClockOffsets, jsonClockOffset{Tier: o.Tier, Host: o.Host, Gateway: o.Gateway,
			Minute: rfc3339(o.Minute), Unit: "ms", NLower: o.NLower, NUpper: o.NUpper, LowerMs: o.LowerMs, UpperMs: o.UpperMs,
			OffsetMs: o.OffsetMs, UncertaintyMs: o.UncertaintyMs, CrossedMs: o.CrossedMs})
	}
	return j
}

// ---- whatif.json ----

type jsonWhatIf struct {
	SchemaVersion string              `json:"schema_version"`
	Dir           string              `json:"dir"`
	Window        *jsonWindow         `json:"window"` // --from/--to; null for every request
	Changes       []string            `json:"changes"`
	Traffic       float64             `json:"traffic"`
	Changed       bool                `json:"changed"`
	Fits          bool                `json:"fits"` // every model's as-is replay fits the logs
	Headline      string              `json:"headline"`
	Replayed      int                 `json:"replayed"`
	LeftOut       int64               `json:"left_out"`
	Unlogged      int                 `json:"unlogged"`
	Unplaced      int                 `json:"unplaced"`
	Tolerance     jsonTolerance       `json:"tolerance"`
	Models        []jsonWhatIfModel   `json:"models"`
	Contract      *jsonWhatIfContract `json:"contract"` // null without --contract
	Pool          jsonPool            `json:"pool"`
}

type jsonTolerance struct {
	Percent float64 `json:"percent"`
	Ms      float64 `json:"ms"`
}

// jsonQuantiles are P50, P95, P99 in ms.
type jsonQuantiles struct {
	P50 *float64 `json:"p50"`
	P95 *float64 `json:"p95"`
	P99 *float64 `json:"p99"`
}

// jsonFigures are a set of whatif figures at the server: queue, TTFT, E2E
// over n requests (n_ttft of them with a first token).
type jsonFigures struct {
	Unit  string        `json:"unit"`
	N     int           `json:"n"`
	NTTFT int           `json:"n_ttft"`
	Queue jsonQuantiles `json:"queue"`
	TTFT  jsonQuantiles `json:"ttft"`
	E2E   jsonQuantiles `json:"e2e"`
}

func newJSONFigures(f whatif.Figures) jsonFigures {
	q := func(v [3]*float64) jsonQuantiles { return jsonQuantiles{P50: v[0], P95: v[1], P99: v[2]} }
	return jsonFigures{Unit: "ms", N: f.N, NTTFT: f.NTTFT, Queue: q(f.Queue), TTFT: q(f.TTFT), E2E: q(f.E2E)}
}

type jsonWhatIfModel struct {
	Model             string              `json:"model"`
	Window            jsonWindow          `json:"window"` // first and last start of its observed requests
	Fits              bool                `json:"fits"`
	Misfits           []string            `json:"misfits"`
	Replicas          int                 `json:"replicas"`
	Slots             string              `json:"slots"`
	PredictedReplicas int                 `json:"predicted_replicas"`
	PredictedSlots    string              `json:"predicted_slots"`
	Observed          jsonFigures         `json:"observed"`
	AsIs              jsonFigures         `json:"as_is"`
	Prediction        jsonPrediction      `json:"prediction"`
	Saturation        *jsonSaturation     `json:"saturation"`
	UseCases          []jsonWhatIfUseCase `json:"use_cases"`
}

// jsonPrediction says what the page shows in the predicted column.
type jsonPrediction struct {
	// Status: "none" (no change asked), "no fit" (the as-is replay does
	// not fit: no prediction), "unchanged" (neither its pool nor traffic
	// changes), "unbounded" (its queue grows without bound: the figures
	// only say how long the window was), "range" (under each plausible
	// routing policy, low … high), or "predicted".
	Status   string             `json:"status"`
	Policy   *string            `json:"policy"`
	Figures  *jsonFigures       `json:"figures"`
	Low      *jsonFigures       `json:"low"`
	High     *jsonFigures       `json:"high"`
	ByPolicy []jsonPolicyFigure `json:"by_policy"`
}

type jsonPolicyFigure struct {
	Policy  string      `json:"policy"`
	Figures jsonFigures `json:"figures"`
}

type jsonSaturation struct {
	Saturated bool    `json:"saturated"`
	Load      float64 `json:"load"` // offered work / capacity
	SpanS     float64 `json:"span_s"`
	WorkS     float64 `json:"work_s"`
	Replicas  int     `json:"replicas"`
	Slots     int     `json:"slots"`
	Needed    int     `json:"needed"`
}

type jsonWhatIfUseCase struct {
	UseCase   string       `json:"use_case"`
	Observed  jsonFigures  `json:"observed"`
	AsIs      jsonFigures  `json:"as_is"`
	Predicted *jsonFigures `json:"predicted"` // null without a prediction for its model
}

type jsonWhatIfContract struct {
	File      string            `json:"file"`
	Met       bool              `json:"met"`
	Added     []jsonAdded       `json:"added"`
	Steps     int               `json:"steps"`
	Checks    []jsonWhatIfCheck `json:"checks"`
	NotJudged []string          `json:"not_judged"`
}

type jsonAdded struct {
	Model    string `json:"model"`
	Replicas int    `json:"replicas"`
}

type jsonWhatIfCheck struct {
	Case       string   `json:"case"`
	Metric     string   `json:"metric"`
	Percentile float64  `json:"percentile"`
	Op         string   `json:"op"`
	Target     float64  `json:"target"`
	Unit       string   `json:"unit"`
	Value      *float64 `json:"value"`
	N          int      `json:"n"`
	Met        bool     `json:"met"`
}

type jsonPool struct {
	Clock       *string          `json:"clock"` // the gateway host whose clock orders arrivals; null: taken as aligned
	Routing     []jsonRouting    `json:"routing"`
	Replicas    []jsonReplica    `json:"replicas"`
	DecodeFits  []jsonDecodeFit  `json:"decode_fits"`
	PrefillFits []jsonPrefillFit `json:"prefill_fits"`
}

// jsonRouting is how often a model's requests went where a policy would
// send them (share of n), against random routing; null where untested.
type jsonRouting struct {
	Model             string   `json:"model"`
	Unit              string   `json:"unit"` // "share"
	LeastLoadedN      int64    `json:"least_loaded_n"`
	LeastLoaded       *float64 `json:"least_loaded"`
	LeastLoadedRandom *float64 `json:"least_loaded_random"`
	RoundRobinN       int64    `json:"round_robin_n"`
	RoundRobin        *float64 `json:"round_robin"`
	RoundRobinRandom  *float64 `json:"round_robin_random"`
	Plausible         []string `json:"plausible"`
	Shown             bool     `json:"shown"`
}

type jsonReplica struct {
	Name          string   `json:"name"`
	Model         string   `json:"model"`
	Requests      int64    `json:"requests"`
	AppearAfterS  float64  `json:"appear_after_s"`
	MaxBatch      int64    `json:"max_batch"`
	SlotsBound    bool     `json:"slots_lower_bound"`
	Queued        int64    `json:"queued"`
	QueuedBelow   int64    `json:"queued_below"`
	WarmUp        int      `json:"warm_up"`
	WarmFactor    *float64 `json:"warm_factor"`
	DecodeSlope   *float64 `json:"decode_slope"` // share slower per further running request
	DecodeFrom    string   `json:"decode_from"`
	PrefillSlope  *float64 `json:"prefill_slope"`
	PrefillFrom   string   `json:"prefill_from"`
	ClockOffsetMs *float64 `json:"clock_offset_ms"` // null: not aligned
}

type jsonDecodeFit struct {
	Model      string   `json:"model"`
	Replica    *string  `json:"replica"` // null: the model's
	N          int64    `json:"n"`
	MsPerToken *float64 `json:"ms_per_token"`
	PerRunning *float64 `json:"per_running"`
	R2         *float64 `json:"r2"`
}

type jsonPrefillFit struct {
	Model      string   `json:"model"`
	Replica    *string  `json:"replica"`
	N          int      `json:"n"`
	Ms         *float64 `json:"ms"`
	PerToken   *float64 `json:"per_prompt_token_ms"`
	PerRunning *float64 `json:"per_running"`
	R2         *float64 `json:"r2"`
}

func newJSONPrediction(r *whatif.Result, m whatif.ModelResult) jsonPrediction {
	p := jsonPrediction{ByPolicy: []jsonPolicyFigure{}}
	fig := func(f whatif.Figures) *jsonFigures { j := newJSONFigures(f); return &j }
	switch {
	case !r.Changed:
		p.Status = "none"
		return p
	case !m.Fits:
		p.Status = "no fit"
		return p
	case m.Untouched:
		p.Status = "unchanged"
	case m.Saturation.Saturated():
		p.Status = "unbounded"
	case len(m.ByPolicy) > 1:
		p.Status = "range"
		p.Low, p.High = fig(m.Low), fig(m.High)
	default:
		p.Status = "predicted"
	}
	p.Figures = fig(m.Predicted)
	if len(m.ByPolicy) <= 1 {
		p.Policy = strPtr(m.Policy.String())
	}
	for _, b := range m.ByPolicy {
		p.ByPolicy = append(p.ByPolicy, jsonPolicyFigure{Policy: b.Policy.String(), Figures: newJSONFigures(b.Figures)})
	}
	return p
}

func newJSONWhatIf(r *whatif.Result) *jsonWhatIf {
	j := &jsonWhatIf{SchemaVersion: SchemaVersion, Dir: r.Dir, Changes: orEmpty(whatIfChanges(r)), Traffic: r.Traffic,
		Changed: r.Changed, Fits: r.Fits, Headline: WhatIfHeadline(r), Replayed: r.Replayed, LeftOut: r.LeftOut,
		Tolerance: jsonTolerance{Percent: whatif.TolerancePct, Ms: whatif.ToleranceMs},
		Models:    []jsonWhatIfModel{},
		Pool: jsonPool{Routing: []jsonRouting{}, Replicas: []jsonReplica{}, DecodeFits: []jsonDecodeFit{},
			PrefillFits: []jsonPrefillFit{}}}
	if j.Traffic == 0 {
		j.Traffic = 1 // 0 means unchanged (whatif.Options)
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
	for _, m := range r.Models {
		jm := jsonWhatIfModel{Model: m.Model, Window: window(m.From, m.To), Fits: m.Fits, Misfits: whatIfMisfits(m.Misfits),
			Replicas: m.Replicas, Slots: m.Slots, PredictedReplicas: m.PredReplicas, PredictedSlots: m.PredSlots,
			Observed: newJSONFigures(m.Observed), AsIs: newJSONFigures(m.AsIs), Prediction: newJSONPrediction(r, m),
			UseCases: []jsonWhatIfUseCase{}}
		if !r.Changed {
			jm.PredictedReplicas, jm.PredictedSlots = m.Replicas, m.Slots
		}
		if s := m.Saturation; s != nil {
			jm.Saturation = &jsonSaturation{Saturated: s.Saturated(), Load: s.Load, SpanS: s.SpanS, WorkS: s.WorkS,
				Replicas: s.Replicas, Slots: s.Slots, Needed: s.Needed}
		}
		for _, s := range m.Slices {
			ju := jsonWhatIfUseCase{UseCase: s.UseCase, Observed: newJSONFigures(s.Observed), AsIs: newJSONFigures(s.AsIs)}
			if r.Changed && m.Fits {
				f := newJSONFigures(s.Predicted)
				ju.Predicted = &f
			}
			jm.UseCases = append(jm.UseCases, ju)
		}
		j.Models = append(j.Models, jm)
	}
	if c := r.Contract; c != nil {
		jc := &jsonWhatIfContract{File: c.File, Met: c.Met, Added: []jsonAdded{}, Steps: c.Steps,
			Checks: []jsonWhatIfCheck{}, NotJudged: whatIfNotJudgedList(c.NotJudged)}
		for i, n := range c.Added {
			if i < len(c.Models) {
				jc.Added = append(jc.Added, jsonAdded{Model: c.Models[i], Replicas: n})
			}
		}
		for _, k := range c.Checks {
			jc.Checks = append(jc.Checks, jsonWhatIfCheck{Case: k.Case, Metric: k.Metric, Percentile: k.Percentile, Op: k.Op,
				Target: k.Target, Unit: "ms", Value: k.Value, N: k.N, Met: k.Met})
		}
		j.Contract = jc
	}
	if p := r.Pool; p != nil {
		j.Unlogged, j.Unplaced = p.Unlogged, p.Unplaced
		j.Pool.Clock = strPtr(p.Clock)
		for _, e := range p.Routing {
			jr := jsonRouting{Model: e.Model, Unit: "share", LeastLoadedN: e.LLN, RoundRobinN: e.RRN,
				Plausible: []string{}, Shown: e.Shown()}
			if e.LLN > 0 {
				jr.LeastLoaded, jr.LeastLoadedRandom = finite(e.LeastLoaded), finite(e.RandomBaseline)
			}
			if e.RRN > 0 {
				jr.RoundRobin, jr.RoundRobinRandom = finite(e.RoundRobin), finite(e.RRBaseline)
			}
			for _, pl := range e.Plausible {
				jr.Plausible = append(jr.Plausible, pl.String())
			}
			j.Pool.Routing = append(j.Pool.Routing, jr)
		}
		for _, e := range p.Evidence {
			je := jsonReplica{Name: e.Name, Model: e.Model, Requests: e.N, AppearAfterS: e.AppearAfter.Seconds(),
				MaxBatch: e.MaxBatch, SlotsBound: e.SlotsBound, Queued: e.Queued, QueuedBelow: e.QueuedBelow,
				WarmUp: e.WarmUp, DecodeSlope: finite(e.Slope), DecodeFrom: e.SlopeFrom,
				PrefillSlope: finite(e.PrefillSlope), PrefillFrom: e.PrefillFrom}
			if e.WarmUp > 0 {
				je.WarmFactor = finite(e.WarmFactor)
			}
			if e.Aligned {
				je.ClockOffsetMs = finite(e.OffsetMs)
			}
			j.Pool.Replicas = append(j.Pool.Replicas, je)
		}
		for _, f := range p.Fits {
			j.Pool.DecodeFits = append(j.Pool.DecodeFits, jsonDecodeFit{Model: f.Model, Replica: strPtr(f.Replica), N: f.TPOTN,
				MsPerToken: f.TPOTIntercept, PerRunning: f.TPOTSlope, R2: f.TPOTR2})
		}
		for _, f := range p.PrefillFits {
			j.Pool.PrefillFits = append(j.Pool.PrefillFits, jsonPrefillFit{Model: f.Model, Replica: strPtr(f.Replica), N: f.N,
				Ms: finite(f.Intercept), PerToken: finite(f.PerToken), PerRunning: finite(f.Slope), R2: finite(f.R2)})
		}
	}
	return j
}

// RenderWhatIfJSON writes r as whatif.json.
func RenderWhatIfJSON(w io.Writer, r *whatif.Result) error {
	return encodeJSON(w, newJSONWhatIf(r))
}
