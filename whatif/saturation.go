package whatif

import "math"

// Saturation compares the work a model's requests offer its predicted
// pool with what the pool can serve over the same span: when the offered
// work is more, the queue grows for as long as the traffic lasts, and the
// replay's percentiles say only how long the window was.
type Saturation struct {
	// Load is the offered work over the pool's capacity: the requests'
	// service times at full batches (every slot busy, each slowed by the
	// batch as fitted), summed, over the slots times the span each
	// replica is there, from the model's first arrival to its last.
	Load float64
	// SpanS is that span in seconds, WorkS the service seconds offered.
	SpanS, WorkS float64
	// Replicas and Slots are the pool's (Slots the most of any replica);
	// Needed is the fewest replicas of Slots, there for the whole span,
	// whose capacity covers the work.
	Replicas, Slots, Needed int
}

// Saturated reports whether the offered work exceeds the capacity.
func (s *Saturation) Saturated() bool { return s != nil && s.Load > 1 }

// saturation is model m's Saturation in the pool reps with the jobs as
// they arrive in the prediction; nil when its requests span no time.
func saturation(reps []Replica, jobs []Job, m int) *Saturation {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, j := range jobs {
		if j.Model == m {
			first, last = min(first, j.Arrival), max(last, j.Arrival)
		}
	}
	if last <= first {
		return nil
	}
	s := &Saturation{SpanS: float64(last-first) / 1e9}
	var slope, pslope float64
	var capacity float64 // slot-seconds
	for _, r := range reps {
		if r.Model != m {
			continue
		}
		s.Replicas++
		s.Slots = max(s.Slots, r.Slots)
		slope, pslope = max(slope, r.Slope), max(pslope, r.PrefillSlope)
		from := max(r.Appear, first)
		if from < last {
			capacity += float64(r.Slots) * float64(last-from) / 1e9
		}
	}
	full := float64(s.Slots - 1)
	for _, j := range jobs {
		if j.Model != m {
			continue
		}
		s.WorkS += (j.PrefillMs*(1+pslope*full) + float64(j.Tokens)*j.BaseTPOTMs*(1+slope*full) + j.FixedDecodeMs) / 1e3
	}
	if capacity <= 0 || s.Slots == 0 {
		return nil
	}
	s.Load = s.WorkS / capacity
	s.Needed = int(math.Ceil(s.WorkS / (float64(s.Slots) * s.SpanS)))
	return s
}
