package whatif

import (
	"math"
)

// PrefillFit is prefill's dependence on the prompt and on the batch, per
// model and replica (Replica "": the model's replicas together), fitted
// by least squares on the requests outside a warm-up (fitPrefill):
//
//	prefill_ms = (Intercept + PerToken * prompt_tokens) * (1 + Slope * (batch - 1))
//
// Slope is how much slower each further running request makes prefill,
// as decode's slowdown is tpot_slope / tpot_intercept; R2 the share of
// the variance the fit explains over its N requests.
type PrefillFit struct {
	Model, Replica string
	N              int
	Intercept      float64
	PerToken       float64
	Slope          float64
	R2             float64
}

// prefillPoint is one request's prefill, prompt and batch (scaled up for
// the requests without a server record).
type prefillPoint struct{ y, prompt, batch float64 }

// fitPrefill fits prefill = (a + b*prompt) * (1 + s*(batch-1)) by
// alternating least squares: with s fixed, a and b are a linear fit of
// prefill on (1 + s*(batch-1)) and prompt*(1 + s*(batch-1)); with a and b
// fixed, s is the fit through the origin of prefill - g on g*(batch-1),
// g = a + b*prompt. It starts from s = 0 (the prompt alone) and stops
// when s moves less than 1e-9; s is kept at 0 or more (a batch does not
// speed prefill up). With one prompt length b is 0. ok is false with fewer than MinFitRequests points or
// a fit that cannot be solved.
func fitPrefill(pts []prefillPoint) (a, b, s, r2 float64, ok bool) {
	if len(pts) < MinFitRequests {
		return 0, 0, 0, 0, false
	}
	for range 500 {
		var s11, s12, s22, t1, t2 float64
		for _, p := range pts {
			w := 1 + s*(p.batch-1)
			x1, x2 := w, p.prompt*w
			s11, s12, s22 = s11+x1*x1, s12+x1*x2, s22+x2*x2
			t1, t2 = t1+x1*p.y, t2+x2*p.y
		}
		det := s11*s22 - s12*s12
		switch {
		case math.IsNaN(det) || s11 == 0:
			return 0, 0, 0, 0, false
		case det <= 1e-9*s11*s22:
			// One prompt length: no per-token term to tell apart.
			a, b = t1/s11, 0
		default:
			a, b = (t1*s22-t2*s12)/det, (s11*t2-s12*t1)/det
		}
		var num, den float64
		for _, p := range pts {
			g := a + b*p.prompt
			num += g * (p.batch - 1) * (p.y - g)
			den += g * (p.batch - 1) * g * (p.batch - 1)
		}
		next := 0.0
		if den > 0 {
			next = max(num/den, 0)
		}
		done := math.Abs(next-s) < 1e-9
		s = next
		if done {
			break
		}
	}
	var mean, sse, sst float64
	for _, p := range pts {
		mean += p.y
	}
	mean /= float64(len(pts))
	for _, p := range pts {
		e := p.y - (a+b*p.prompt)*(1+s*(p.batch-1))
		sse += e * e
		sst += (p.y - mean) * (p.y - mean)
	}
	r2 = math.NaN()
	if sst > 0 {
		r2 = 1 - sse/sst
	}
	return a, b, s, r2, true
}

// prefillFits fits prefill per model and replica and per model, on the
// requests outside a warm-up (phase other than cold) with a prefill and a
// prompt; batch is each request's batch scaled up by its model's share of
// requests without a server record.
func prefillFits(p *Pool, d *Data, modelIdx map[string]int) []PrefillFit {
	type key struct{ model, replica string }
	pts := map[key][]prefillPoint{}
	var keys []key
	add := func(k key, pt prefillPoint) {
		if _, ok := pts[k]; !ok {
			keys = append(keys, k)
		}
		pts[k] = append(pts[k], pt)
	}
	for i := range d.Requests {
		w := &d.Requests[i]
		m, ok := modelIdx[w.Model]
		if !ok || w.Phase == "cold" || math.IsNaN(w.PrefillMs) || w.PrefillMs < 0 || w.PromptTokens <= 0 {
			continue
		}
		pt := prefillPoint{y: w.PrefillMs, prompt: float64(w.PromptTokens), batch: scaledBatch(p, m, w.Batch)}
		add(key{w.Model, ""}, pt)
		add(key{w.Model, w.Replica}, pt)
	}
	var out []PrefillFit
	for _, k := range keys {
		a, b, s, r2, ok := fitPrefill(pts[k])
		if !ok {
			continue
		}
		out = append(out, PrefillFit{Model: k.model, Replica: k.replica, N: len(pts[k]), Intercept: a, PerToken: b, Slope: s, R2: r2})
	}
	return out
}

// scaledBatch is a logged batch scaled up by model m's share of requests
// without a server record (they ran in it too).
func scaledBatch(p *Pool, m int, batch int64) float64 {
	return 1 + float64(max(batch, 1)-1)/(1-p.Missing[m])
}

// prefillOf is the prefill fit of the replica when it has MinFitRequests
// requests, else its model's; ok false when neither was fitted.
func prefillOf(fits []PrefillFit, model, replica string) (PrefillFit, bool) {
	for _, r := range []string{replica, ""} {
		for _, f := range fits {
			if f.Model == model && f.Replica == r && f.N >= MinFitRequests {
				return f, true
			}
		}
	}
	return PrefillFit{}, false
}
