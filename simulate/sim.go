package simulate

import (
	"bufio"
	"container/heap"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Imperfection kinds, in the order they are reported.
const (
	impRejected = iota
	impServerError
	impTimeout
	impCancel
	impLostClient
	impTruncClient
	impDupClient
	impLostGateway
	impTruncGateway
	impDupGateway
	impLostServer
	impTruncServer
	impDupServer
	numImp
)

var impNames = [numImp]string{
	"rejected:429", "error:5xx", "error:timeout", "error:canceled",
	"lost:client", "truncated:client", "duplicated:client",
	"lost:gateway", "truncated:gateway", "duplicated:gateway",
	"lost:server", "truncated:server", "duplicated:server",
}

const (
	tierClient = iota
	tierGateway
	tierServer
)

var tierNames = [3]string{"client", "gateway", "server"}

// Give-up plans.
const (
	giveUpNatural = iota // Config.ClientTimeout
	giveUpTimeout        // short client deadline
	giveUpCancel         // user cancels
)

type request struct {
	id       string
	idx      int
	useCase  int
	model    int
	region   int
	client   int
	gateway  int
	replica  *replica
	streamed bool
	prompt   int
	out      int // tokens the server produces (0 on a server error)
	length   bool
	srvErr   int  // 0, or the server's 5xx status
	cold     bool // decodes ColdFactor times slower (ColdDecode)
	// Truth phase: warm is set for a request the late replica's warm-up
	// slowed (see TruthRow), queuedBurst for one that waited in a queue
	// behind a burst request.
	warm, queuedBurst bool
	engineID          int64 // the replica's own number for it, in arrival order (Triton trace id, TRT-LLM executor id)

	reqLeg, respLeg, hopUp, hopDown, pass, post int64
	tpot                                        int64
	giveUpKind                                  int

	// True times, ns since Config.Epoch.
	cStart, gStart, upStart, sArr, sSched, sFirst, sEnd, upEnd, gEnd, cFirst, cEnd int64

	forwarded, rejected bool
	// ErrorMix: overloaded, the server answers 503 at once without
	// queueing; limited, the gateway rejects it with a 429.
	overloaded, limited bool
	firstKnown          bool // the server has scheduled it, so cFirst is known
	cHasFirst           bool
	clientDone, gaveUp  bool
	cStatus             int
	cOut                int
	pending             int
	imp                 uint32
	has                 [3]bool
}

type replica struct {
	name     string
	model    int
	joinAt   int64
	cold     bool
	admitted int
	running  int
	queue    []*request
	head     int
	file     *hostFile
	format   string       // the log format it writes
	w        serverWriter // nil for native
	index    int          // in sim.replicas
	nextID   int64
	readyAt  int64 // admits nothing before (ColdLoad, ColdQueue)
	// The phases among the requests of the queue's current busy period
	// (since it last was empty), which later requests of it inherit.
	busyWarm, busyBurst bool
}

func (r *replica) load() int { return r.running + len(r.queue) - r.head }

func (r *replica) push(q *request) { r.queue = append(r.queue, q) }

func (r *replica) pop() *request {
	q := r.queue[r.head]
	r.queue[r.head] = nil
	r.head++
	if r.head == len(r.queue) {
		r.queue, r.head = r.queue[:0], 0
	} else if r.head > 1024 && r.head*2 > len(r.queue) {
		n := copy(r.queue, r.queue[r.head:])
		clear(r.queue[n:])
		r.queue, r.head = r.queue[:n], 0
	}
	return q
}

type gateway struct {
	file   *hostFile
	w      edgeWriter // nil for native
	tokens float64
	last   int64
}

const (
	evArrive = iota
	evGatewayRecv
	evServerArrive
	evServerEnd
	evGatewayEnd
	evClientEnd
	evGiveUp
	evReady // a loading or not yet ready replica starts serving
)

type event struct {
	t    int64
	seq  uint64
	kind uint8
	r    *request
}

// eventHeap is a min-heap (container/heap) by time, then by the order
// events were made.
type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = event{} // drop the request pointer
	*h = old[:len(old)-1]
	return e
}

func (h *eventHeap) push(e event) { heap.Push(h, e) }
func (h *eventHeap) pop() event   { return heap.Pop(h).(event) }

type sim struct {
	cfg           Config
	rng           *rand.Rand
	traffic       *rand.Rand // draws the requests: rng, or a stream of its own (Config.FixedTraffic)
	epochNs       int64
	events        eventHeap
	seq           uint64
	made          int
	clients       []*hostFile
	clientW       []edgeWriter // per client: nil for native
	clientMapping string       // ClientMappingFile when written
	gateways      []*gateway
	replicas      []*replica
	byModel       [][]*replica
	rrNext        []int // per model, the round-robin counter (Config.Routing)
	files         []*hostFile
	truth         *truthWriter
	evals         *evalsWriter // nil unless Config.Evals
	counts        [numImp]int
	inFlight      int
	maxInFl       int
	lastT         int64
	line          jsonLine
	err           error
	lineFile      *os.File      // server_lines.csv, when a replica writes another format
	lineLog       *bufio.Writer // over lineFile
}

func ms(x float64) int64 { return int64(math.Round(x * 1e6)) }

func (s *sim) exp(meanMs float64) float64 { return s.rng.ExpFloat64() * meanMs }

func (s *sim) uniform(a, b float64) float64 { return a + (b-a)*s.rng.Float64() }

func (s *sim) schedule(t int64, kind uint8, r *request) {
	s.seq++
	s.events.push(event{t: t, seq: s.seq, kind: kind, r: r})
}

// nextArrival draws the next Poisson arrival after t with a piecewise
// constant rate (higher inside the burst window), thinned by the time of day
// and the day of the week when Config.Diurnal or Config.Weekend vary it.
func (s *sim) nextArrival(t int64) int64 {
	if s.cfg.Diurnal == 0 && s.cfg.Weekend == 1 {
		return s.nextPoisson(t)
	}
	for {
		t = s.nextPoisson(t)
		if s.traffic.Float64() < s.rateFactor(t) {
			return t
		}
	}
}

// rateFactor is the share of the rate in force at t (relative to Epoch):
// the time of day's (Config.Diurnal) times the weekend's (Config.Weekend).
func (s *sim) rateFactor(t int64) float64 {
	at := time.Unix(0, s.epochNs+t).UTC()
	f := 1.0
	if s.cfg.Diurnal > 0 {
		h := float64(at.Hour()) + float64(at.Minute())/60 + float64(at.Second())/3600
		f = 1 - s.cfg.Diurnal*(1-math.Cos(2*math.Pi*(h-15)/24))/2
	}
	if wd := at.Weekday(); wd == time.Saturday || wd == time.Sunday {
		f *= s.cfg.Weekend
	}
	return f
}

// nextPoisson draws the next arrival of the Poisson process at the peak
// rate: Config.RatePerSecond, times Config.BurstMultiplier in the burst.
func (s *sim) nextPoisson(t int64) int64 {
	bs, be := int64(s.cfg.BurstStart), int64(s.cfg.BurstStart+s.cfg.BurstDuration)
	for {
		rate := s.cfg.RatePerSecond
		boundary := int64(math.MaxInt64)
		switch {
		case t < bs:
			boundary = bs
		case t < be:
			rate *= s.cfg.BurstMultiplier
			boundary = be
		}
		nt := t + int64(s.traffic.ExpFloat64()/rate*1e9)
		if nt < boundary {
			return nt
		}
		t = boundary
	}
}

func pick(rng *rand.Rand, weights func(i int) float64, n int) int {
	total := 0.0
	for i := 0; i < n; i++ {
		total += weights(i)
	}
	u := rng.Float64() * total
	for i := 0; i < n; i++ {
		u -= weights(i)
		if u < 0 {
			return i
		}
	}
	return n - 1
}

func clampInt(x float64, lo, hi int) (int, bool) {
	v := int(math.Round(x))
	if v < lo {
		return lo, false
	}
	if v > hi {
		return hi, true
	}
	return v, false
}

func (s *sim) newRequest(t int64) *request {
	rng := s.traffic
	exp := func(meanMs float64) float64 { return rng.ExpFloat64() * meanMs }
	uniform := func(a, b float64) float64 { return a + (b-a)*rng.Float64() }
	r := &request{idx: s.made, cStart: t, pending: 2}
	r.id = fmt.Sprintf("%012x-%07d", rng.Uint64()&0xffffffffffff, s.made)
	r.region = rng.IntN(len(regions))
	base := 0
	for i := 0; i < r.region; i++ {
		base += regions[i].clients
	}
	r.client = base + rng.IntN(regions[r.region].clients)
	r.useCase = pick(rng, func(i int) float64 { return useCases[i].weight }, len(useCases))
	r.model = pick(rng, func(i int) float64 { return models[i].weight }, len(models))
	uc := useCases[r.useCase]
	r.streamed = rng.Float64() < uc.streamShare*s.cfg.StreamFraction
	r.prompt, _ = clampInt(uc.promptMedian*math.Exp(uc.promptSigma*rng.NormFloat64()), 1, 16000)
	r.out, r.length = clampInt(uc.outMedian*math.Exp(uc.outSigma*rng.NormFloat64()), 1, uc.maxOut)
	leg := regions[r.region].legMs
	r.reqLeg = ms(leg + exp(0.15*leg+0.5))
	r.respLeg = ms(leg + exp(0.15*leg+0.5))
	// An injected network incident: no random draw, so the rest of the
	// run draws what it would without it.
	if d := s.cfg.RegionDelay[regions[r.region].name]; d > 0 {
		r.reqLeg += int64(d)
		r.respLeg += int64(d)
	}
	r.gateway = rng.IntN(len(s.gateways))
	deadline := s.cfg.ClientTimeout
	if mix := s.cfg.ErrorMix; mix != nil {
		// One draw picks the way the request fails, or none.
		u, acc := rng.Float64(), 0.0
		for _, status := range ErrorMixStatuses {
			if acc += mix[status]; u < acc {
				switch status {
				case 500:
					r.srvErr = 500
				case 503:
					r.srvErr, r.overloaded = 503, true
				case 429:
					r.limited = true
				case 408:
					r.giveUpKind = giveUpTimeout
					deadline = time.Duration(ms(uniform(100, 800)))
				case 499:
					r.giveUpKind = giveUpCancel
					deadline = time.Duration(ms(uniform(200, 3000)))
				}
				break
			}
		}
	} else {
		if rng.Float64() < s.cfg.ServerErrorRate {
			r.srvErr = 500
			if rng.IntN(3) == 0 {
				r.srvErr = 503
			}
		}
		switch u := rng.Float64(); {
		case u < s.cfg.TimeoutRate:
			r.giveUpKind = giveUpTimeout
			deadline = time.Duration(ms(uniform(100, 800)))
		case u < s.cfg.TimeoutRate+s.cfg.CancelRate:
			r.giveUpKind = giveUpCancel
			deadline = time.Duration(ms(uniform(200, 3000)))
		}
	}
	if deadline > s.cfg.ClientTimeout {
		deadline = s.cfg.ClientTimeout
	}
	s.schedule(t+r.reqLeg, evGatewayRecv, r)
	s.schedule(t+int64(deadline), evGiveUp, r)
	return r
}

func (s *sim) gatewayRecv(r *request, t int64) {
	r.gStart = t
	g := s.gateways[r.gateway]
	reject := func() {
		r.rejected = true
		s.counts[impRejected]++
		r.imp |= 1 << impRejected
		r.gEnd = t + ms(0.3+s.exp(0.2))
		s.schedule(r.gEnd, evGatewayEnd, r)
		if !r.clientDone {
			r.cEnd = r.gEnd + r.respLeg
			s.schedule(r.cEnd, evClientEnd, r)
		}
	}
	if r.limited {
		reject()
		return
	}
	if rate := s.cfg.RateLimitPerSecond; rate > 0 && s.cfg.ErrorMix == nil {
		g.tokens = math.Min(rate, g.tokens+float64(t-g.last)*rate/1e9)
		g.last = t
		if g.tokens < 1 {
			reject()
			return
		}
		g.tokens--
	}
	proc := 0.6 + s.exp(0.3)
	if s.rng.Float64() < s.cfg.SlowAuthRate {
		proc += s.uniform(20, 80) + float64(s.cfg.SlowAuthExtra)/1e6
	}
	r.forwarded = true
	r.pending++
	r.upStart = t + ms(proc)
	r.hopUp = ms(0.3 + s.exp(0.15))
	s.schedule(r.upStart+r.hopUp, evServerArrive, r)
}

func (s *sim) serverArrive(r *request, t int64) {
	r.sArr = t
	best := s.route(r, t)
	r.replica = best
	best.nextID++
	r.engineID = best.nextID
	if r.overloaded {
		// It answers 503 at once: no queue, no batch slot, no prefill.
		r.sSched = t
		r.hopDown = ms(0.3 + s.exp(0.15))
		r.pass = ms(0.05 + s.exp(0.05))
		r.post = r.pass + ms(0.2+s.exp(0.15))
		s.counts[impServerError]++
		r.imp |= 1 << impServerError
		r.out = 0
		r.sEnd = t + ms(0.5+s.exp(0.5))
		s.schedule(r.sEnd, evServerEnd, r)
		return
	}
	wasEmpty := best.head == len(best.queue)
	best.push(r)
	s.admit(best, t)
	warm := s.warmingUp(best, r, t)
	if best.cold && s.coldKind(ColdLoad) && r.engineID == 1 {
		best.readyAt = t + int64(s.cfg.ColdDelay) // its first request loads the model
		s.schedule(best.readyAt, evReady, &request{replica: best})
	}
	// The truth's phase: a request that waits in a queue behind a request
	// of the warm-up or of the burst belongs to that phase too.
	if r.sSched != t {
		if wasEmpty {
			best.busyWarm, best.busyBurst = false, false
		}
		r.warm, r.queuedBurst = best.busyWarm, best.busyBurst
		best.busyWarm = best.busyWarm || warm
		best.busyBurst = best.busyBurst || s.inBurst(r)
	}
	r.warm = r.warm || warm
}

// route picks the replica of r's model that serves it, among those joined
// by t, by Config.Routing.
func (s *sim) route(r *request, t int64) *replica {
	switch s.cfg.Routing {
	case RouteRoundRobin, RouteRandom:
		var joined []*replica
		for _, rep := range s.byModel[r.model] {
			if rep.joinAt <= t {
				joined = append(joined, rep)
			}
		}
		if s.cfg.Routing == RouteRandom {
			return joined[s.rng.IntN(len(joined))]
		}
		if s.rrNext == nil {
			s.rrNext = make([]int, len(models))
		}
		k := s.rrNext[r.model] % len(joined)
		s.rrNext[r.model]++
		return joined[k]
	}
	var best *replica
	for _, rep := range s.byModel[r.model] {
		if rep.joinAt > t {
			continue
		}
		if best == nil || rep.load() < best.load() {
			best = rep
		}
	}
	return best
}

// dropTiers removes the logs of the tiers Config.Tiers leaves out, and
// their files from the summary.
func (s *sim) dropTiers() error {
	if len(s.cfg.Tiers) == 0 {
		return nil
	}
	for _, t := range tierNames {
		if !slices.Contains(s.cfg.Tiers, t) {
			if err := os.RemoveAll(filepath.Join(s.cfg.Out, t)); err != nil {
				return err
			}
		}
	}
	s.files = slices.DeleteFunc(s.files, func(hf *hostFile) bool { return !slices.Contains(s.cfg.Tiers, hf.clock.Tier) })
	return nil
}

// coldKind reports whether the late replica shows warm-up kind k.
func (s *sim) coldKind(k string) bool { return slices.Contains(s.cfg.ColdKinds, k) }

// inBurst reports whether the client sent r inside the burst window.
func (s *sim) inBurst(r *request) bool {
	return r.cStart >= int64(s.cfg.BurstStart) && r.cStart < int64(s.cfg.BurstStart+s.cfg.BurstDuration)
}

// warmingUp reports whether the warm-up of rep slows r, which arrived at t
// as rep's r.engineID-th request: one of its first ColdRequests
// (ColdDecode) or ColdPrefillRequests (ColdPrefill), its first request or
// one arriving while it loads (ColdLoad), or one arriving before it is
// ready (ColdQueue). Requests are admitted in arrival order.
func (s *sim) warmingUp(rep *replica, r *request, t int64) bool {
	if !rep.cold {
		return false
	}
	n := r.engineID
	return s.coldKind(ColdDecode) && n <= int64(s.cfg.ColdRequests) ||
		s.coldKind(ColdPrefill) && n <= int64(s.cfg.ColdPrefillRequests) ||
		s.coldKind(ColdLoad) && (n == 1 || t < rep.readyAt) ||
		s.coldKind(ColdQueue) && t < rep.readyAt
}

// admit moves waiting requests into the running batch while there is room.
// A request's decode time per token is fixed by the batch size it joins.
func (s *sim) admit(rep *replica, t int64) {
	m := models[rep.model]
	if t < rep.readyAt {
		return
	}
	for rep.running < s.cfg.MaxBatch && rep.head < len(rep.queue) {
		r := rep.pop()
		rep.running++
		r.sSched = t
		factor := 1.0
		if rep.cold && s.coldKind(ColdDecode) && rep.admitted < s.cfg.ColdRequests {
			factor = s.cfg.ColdFactor
			r.cold = true
		}
		k := rep.admitted
		rep.admitted++
		prefill := (m.prefillBaseMs + m.prefillPerTok*float64(r.prompt)) * s.uniform(0.95, 1.05) * factor *
			(1 + s.cfg.PrefillBatchSlope*float64(rep.running-1))
		if rep.cold && s.coldKind(ColdPrefill) && k < s.cfg.ColdPrefillRequests {
			prefill += float64(s.cfg.ColdDelay) / 1e6 * (1 - float64(k)/float64(s.cfg.ColdPrefillRequests))
		}
		if rep.cold && s.coldKind(ColdLoad) && k == 0 {
			prefill += float64(s.cfg.ColdDelay) / 1e6
		}
		tpot := m.tpotMs * (1 + m.batchSlope*float64(rep.running-1)) * s.uniform(0.95, 1.05) * factor
		r.hopDown = ms(0.3 + s.exp(0.15))
		r.pass = ms(0.05 + s.exp(0.05))
		r.post = r.pass + ms(0.2+s.exp(0.15))
		if r.srvErr != 0 {
			s.counts[impServerError]++
			r.imp |= 1 << impServerError
			r.out = 0
			r.sEnd = t + ms(prefill*s.uniform(0.1, 1))
		} else {
			r.tpot = ms(tpot)
			r.sFirst = t + ms(prefill)
			r.sEnd = r.sFirst + int64(r.out-1)*r.tpot
			r.firstKnown = true
			r.cFirst = r.sFirst + r.hopDown + r.pass + r.respLeg
		}
		s.schedule(r.sEnd, evServerEnd, r)
	}
}

func (s *sim) serverEnd(r *request, t int64) {
	rep := r.replica
	if !r.overloaded {
		rep.running--
	}
	s.writeServer(r)
	s.done(r)
	r.upEnd = t + r.hopDown
	r.gEnd = r.upEnd + r.post
	s.schedule(r.gEnd, evGatewayEnd, r)
	if !r.clientDone { // a client that gave up keeps its give-up time
		r.cEnd = r.gEnd + r.respLeg
		s.schedule(r.cEnd, evClientEnd, r)
	}
	s.admit(rep, t)
}

func (s *sim) upstreamStatus(r *request) int {
	switch {
	case r.rejected:
		return 429
	case r.srvErr != 0:
		return r.srvErr
	}
	return 200
}

func (s *sim) clientEnd(r *request) {
	if r.clientDone {
		return
	}
	r.clientDone = true
	r.cStatus = s.upstreamStatus(r)
	if r.cStatus == 200 {
		r.cOut = r.out
		r.cHasFirst = r.streamed
	}
	s.writeClient(r, "")
	s.done(r)
}

func (s *sim) giveUp(r *request, t int64) {
	if r.clientDone {
		return
	}
	r.clientDone, r.gaveUp = true, true
	r.cEnd = t
	errName := "timeout"
	r.cStatus = 408
	kind := impTimeout
	if r.giveUpKind == giveUpCancel {
		errName, r.cStatus, kind = "canceled", 0, impCancel
	}
	s.counts[kind]++
	r.imp |= 1 << kind
	if r.streamed && r.firstKnown && r.cFirst <= t {
		r.cHasFirst = true
		n := 1 + int((t-r.cFirst)/max(r.tpot, 1))
		r.cOut = min(n, r.out)
	}
	s.writeClient(r, errName)
	s.done(r)
}

// fate draws what happens to one tier's record and counts it.
func (s *sim) fate(r *request, tier int) int {
	u := s.rng.Float64()
	f := fateOK
	switch {
	case u < s.cfg.LossRate:
		f = fateLost
	case u < s.cfg.LossRate+s.cfg.TruncateRate:
		f = fateTruncated
	case u < s.cfg.LossRate+s.cfg.TruncateRate+s.cfg.DuplicateRate:
		f = fateDuplicated
	}
	if f != fateOK {
		k := impLostClient + 3*tier + f - fateLost
		s.counts[k]++
		r.imp |= 1 << k
	}
	r.has[tier] = f == fateOK || f == fateDuplicated
	return f
}

func (s *sim) writeClient(r *request, errName string) {
	hf := s.clients[r.client]
	j := &s.line
	j.reset(&hf.clock, s.epochNs)
	j.str("request_id", r.id)
	j.time("start", r.cStart)
	if r.cHasFirst {
		j.time("first_token", r.cFirst)
	}
	j.time("end", r.cEnd)
	j.num("status", r.cStatus)
	switch {
	case errName != "":
	case r.rejected:
		errName = "rate_limited"
	case r.srvErr != 0:
		errName = "server_error"
	}
	if errName != "" {
		j.str("error", errName)
	}
	j.boolean("streamed", r.streamed)
	j.str("model", models[r.model].name)
	j.str("use_case", useCases[r.useCase].name)
	j.str("client", hf.clock.Host)
	j.str("region", regions[r.region].name)
	j.num("prompt_tokens", r.prompt)
	j.num("output_tokens", r.cOut)
	s.writeEdge(hf, s.clientW[r.client], r, tierClient)
}

func (s *sim) writeGateway(r *request) {
	hf := s.gateways[r.gateway].file
	j := &s.line
	j.reset(&hf.clock, s.epochNs)
	j.str("request_id", r.id)
	j.time("start", r.gStart)
	j.time("end", r.gEnd)
	if r.forwarded {
		j.time("upstream_start", r.upStart)
		j.time("upstream_end", r.upEnd)
	}
	j.num("status", s.gatewayStatus(r)) // 499: the client had gone before the response was sent
	j.str("route", useCases[r.useCase].route)
	if r.forwarded {
		j.str("upstream", r.replica.name+":8000")
	}
	j.str("gateway", hf.clock.Host)
	s.writeEdge(hf, s.gateways[r.gateway].w, r, tierGateway)
}

// writeEdge writes the client's or gateway's record built in s.line,
// natively or, with w, in another format: drawing exactly what the native
// line would have drawn, so that the simulation and the truth do not
// depend on the format.
func (s *sim) writeEdge(hf *hostFile, w edgeWriter, r *request, tier int) {
	line := s.line.done()
	if w == nil {
		hf.write(line, s.fate(r, tier), s.rng)
		return
	}
	n := len(line)
	fate := s.fate(r, tier)
	cut, after := drawFate(fate, n, s.rng)
	w.write(s, r, fate, cut, n, after)
}

func (s *sim) writeServer(r *request) {
	hf := r.replica.file
	j := &s.line
	j.reset(&hf.clock, s.epochNs)
	j.str("request_id", r.id)
	j.time("arrival", r.sArr)
	j.time("scheduled", r.sSched)
	if r.srvErr == 0 {
		j.time("first_token", r.sFirst)
	}
	j.time("end", r.sEnd)
	j.str("model", models[r.model].name)
	j.str("replica", r.replica.name)
	j.num("prompt_tokens", r.prompt)
	j.num("output_tokens", r.out)
	finish := "stop"
	switch {
	case r.srvErr != 0:
		finish = "error"
	case r.length:
		finish = "length"
	}
	j.str("finish_reason", finish)
	status := 200
	if r.srvErr != 0 {
		status = r.srvErr
	}
	j.num("status", status)
	if r.replica.w == nil {
		hf.write(j.done(), s.fate(r, tierServer), s.rng)
		return
	}
	// Another format: draw exactly what the native line would have drawn,
	// so that the simulation and the truth do not depend on the format.
	n := len(j.done())
	fate := s.fate(r, tierServer)
	cut, after := drawFate(fate, n, s.rng)
	r.replica.w.write(s, r, fate, cut, n, after)
}

// done marks one of the request's records complete; after the last one the
// truth row is written and the request is forgotten.
func (s *sim) done(r *request) {
	r.pending--
	if r.pending > 0 {
		return
	}
	s.inFlight--
	if s.err == nil {
		row := s.truthRow(r)
		s.err = s.truth.add(row)
		if s.err == nil {
			s.err = s.evals.add(row)
		}
	}
}

func msPtr(ns int64) *float64 {
	v := float64(ns) / 1e6
	return &v
}

func (s *sim) truthRow(r *request) TruthRow {
	phase := "steady"
	switch {
	case r.warm:
		phase = "cold"
	case s.inBurst(r) || r.queuedBurst:
		phase = "burst"
	}
	row := TruthRow{
		RequestID:          r.id,
		ClientStart:        time.Unix(0, s.epochNs+r.cStart).UTC(),
		Model:              models[r.model].name,
		UseCase:            useCases[r.useCase].name,
		Region:             regions[r.region].name,
		Client:             s.clients[r.client].clock.Host,
		Gateway:            s.gateways[r.gateway].file.clock.Host,
		Streamed:           r.streamed,
		Phase:              phase,
		Status:             int32(r.cStatus),
		HasClient:          r.has[tierClient],
		HasGateway:         r.has[tierGateway],
		HasServer:          r.forwarded && r.has[tierServer],
		PromptTokens:       int32(r.prompt),
		OutputTokens:       int32(r.out),
		ClientOutputTokens: int32(r.cOut),
	}
	if r.rejected {
		row.OutputTokens = 0
	}
	cE2E := r.cEnd - r.cStart
	gE2E := r.gEnd - r.gStart
	row.ClientE2EMs = msPtr(cE2E)
	row.GatewayE2EMs = msPtr(gE2E)
	if !(r.gaveUp && r.cEnd < r.gEnd) {
		// A gateway that saw its client leave (it logs 499) ended when it
		// finished, not when the client left: no network time (as analyze).
		row.NetworkMs = msPtr(cE2E - gE2E)
	}
	if r.forwarded {
		row.Replica = r.replica.name
		sE2E := r.sEnd - r.sArr
		row.ServerE2EMs = msPtr(sE2E)
		row.ApplicationMs = msPtr(gE2E - sE2E)
		row.QueueMs = msPtr(r.sSched - r.sArr)
		row.ModelMs = msPtr(r.sEnd - r.sSched)
		// The server logs first_token for every request it completes,
		// streamed or not (as vLLM and TGI do), so the server-side TTFT
		// components exist for non-streamed requests too; only the client
		// side needs a streamed response.
		if r.srvErr == 0 {
			sTTFT := r.sFirst - r.sArr
			tApp := (r.upStart - r.gStart) + ((r.upEnd - r.upStart) - sE2E)
			row.ServerTTFTMs = msPtr(sTTFT)
			row.TTFTQueueMs = msPtr(r.sSched - r.sArr)
			row.TTFTModelMs = msPtr(r.sFirst - r.sSched)
			row.TTFTApplicationMs = msPtr(tApp)
			if r.cHasFirst {
				cTTFT := r.cFirst - r.cStart
				row.ClientTTFTMs = msPtr(cTTFT)
				row.TTFTNetworkMs = msPtr(cTTFT - sTTFT - tApp)
				if r.cEnd > r.cFirst && r.cOut > 1 {
					v := float64(r.cOut-1) / (float64(r.cEnd-r.cFirst) / 1e9)
					row.TPSUser = &v
				}
			}
		}
	}
	var kinds []string
	for k := 0; k < numImp; k++ {
		if r.imp&(1<<k) != 0 {
			kinds = append(kinds, impNames[k])
		}
	}
	row.Imperfection = strings.Join(kinds, ";")
	return row
}

func (s *sim) step(e event) {
	r := e.r
	s.lastT = e.t
	switch e.kind {
	case evArrive:
		s.newRequest(e.t)
		s.made++
		s.inFlight++
		s.maxInFl = max(s.maxInFl, s.inFlight)
		if s.made < s.cfg.Requests {
			s.schedule(s.nextArrival(e.t), evArrive, nil)
		}
	case evGatewayRecv:
		s.gatewayRecv(r, e.t)
	case evServerArrive:
		s.serverArrive(r, e.t)
	case evServerEnd:
		s.serverEnd(r, e.t)
	case evGatewayEnd:
		s.writeGateway(r)
		s.done(r)
	case evClientEnd:
		s.clientEnd(r)
	case evGiveUp:
		s.giveUp(r, e.t)
	case evReady:
		s.admit(r.replica, e.t)
	}
}

// setup draws every host's clock and opens its log file.
func (s *sim) setup() error {
	formats := []string{FormatEpochSeconds, FormatRFC3339UTC, FormatRFC3339Offset}
	n := 0
	newClock := func(tier, host string) HostClock {
		c := HostClock{Tier: tier, Host: host, Format: formats[n%len(formats)]}
		n++
		c.Offset = time.Duration(math.Round(s.uniform(-1, 1)*float64(s.cfg.MaxClockOffset)/1e3)) * time.Microsecond
		// Each host drifts within ±MaxDriftPPM/2, so no two hosts drift
		// apart by more than MaxDriftPPM.
		c.DriftPPM = math.Round(s.uniform(-0.5, 0.5)*s.cfg.MaxDriftPPM*1000) / 1000
		return c
	}
	var clientClocks, gatewayClocks []HostClock
	for _, reg := range regions {
		for i := 1; i <= reg.clients; i++ {
			clientClocks = append(clientClocks, newClock("client", fmt.Sprintf("client-%s-%d", reg.name, i)))
		}
	}
	for i := 1; i <= gatewayHosts; i++ {
		gatewayClocks = append(gatewayClocks, newClock("gateway", fmt.Sprintf("gw-%d", i)))
	}
	s.byModel = make([][]*replica, len(models))
	for m := range models {
		warm := s.cfg.replicasOf(models[m].name)
		n := warm
		if m == 0 && s.cfg.hasColdReplica() {
			n++
		}
		for i := 0; i < n; i++ {
			rep := &replica{name: fmt.Sprintf("%s-%d", models[m].name, i), model: m}
			if i == warm {
				rep.cold, rep.joinAt = true, int64(s.cfg.ColdJoinAt)
				if s.coldKind(ColdQueue) {
					rep.readyAt = rep.joinAt + int64(s.cfg.ColdDelay)
					s.schedule(rep.readyAt, evReady, &request{replica: rep})
				}
			}
			s.byModel[m] = append(s.byModel[m], rep)
			s.replicas = append(s.replicas, rep)
		}
	}
	clientFormats, gatewayFormats, repFormats, err := s.resolveFormats(clientClocks, gatewayClocks)
	if err != nil {
		return err
	}
	// open creates a client's or gateway's file; one writing another
	// format than native gets its writer.
	open := func(c HostClock, format string, all []string) (*hostFile, edgeWriter, error) {
		if format != FormatNative {
			c.Format = edgeTimeFormat[format]
		}
		hf, err := createHostFile(s.cfg.Out, c, edgeFileName(c.Host, format), edgeFileNames(c.Host, all), false)
		if err != nil {
			return nil, nil, err
		}
		s.files = append(s.files, hf)
		if format == FormatNative {
			return hf, nil, nil
		}
		return hf, s.newEdgeWriter(hf, format), nil
	}
	for i, c := range clientClocks {
		hf, w, err := open(c, clientFormats[i], ClientFormats)
		if err != nil {
			return err
		}
		s.clients = append(s.clients, hf)
		s.clientW = append(s.clientW, w)
	}
	for i, c := range gatewayClocks {
		hf, w, err := open(c, gatewayFormats[i], GatewayFormats)
		if err != nil {
			return err
		}
		s.gateways = append(s.gateways, &gateway{file: hf, tokens: s.cfg.RateLimitPerSecond, w: w})
	}
	if err := s.writeClientMapping(clientFormats); err != nil {
		return err
	}
	for i, rep := range s.replicas {
		gz := s.cfg.GzipOneServer && i == len(s.replicas)-1
		rep.index, rep.format = i, repFormats[i]
		c := newClock("server", rep.name)
		if rep.format != FormatNative {
			c.Format = serverTimeFormat[rep.format]
		}
		hf, err := createHostFile(s.cfg.Out, c, serverFileName(rep.name, rep.format), serverFileNames(rep.name), gz)
		if err != nil {
			return err
		}
		s.files = append(s.files, hf)
		rep.file = hf
		if rep.format != FormatNative {
			rep.w = s.newServerWriter(rep)
		}
	}
	return nil
}

// Run simulates cfg.Requests requests and writes the tier logs, truth.parquet,
// truth.csv and clocks.csv under cfg.Out. It prints what was written and the
// imperfections injected to stdout (which may be nil).
func Run(ctx context.Context, cfg Config, stdout io.Writer) (*Summary, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, err
	}
	s := &sim{
		cfg:     cfg,
		rng:     rand.New(rand.NewPCG(uint64(cfg.Seed), 0x696e666572747261)),
		epochNs: cfg.Epoch.UnixNano(),
	}
	s.traffic = s.rng
	if cfg.FixedTraffic {
		s.traffic = rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472616666696300))
	}
	err := s.setup()
	if err == nil {
		s.truth, err = newTruthWriter(cfg.Out, cfg.TruthRowGroupRows)
	}
	if err == nil && cfg.Evals {
		s.evals, err = newEvalsWriter(cfg.Out)
	}
	if err == nil {
		s.schedule(s.nextArrival(0), evArrive, nil)
		for n := 0; len(s.events) > 0 && s.err == nil; n++ {
			if n&4095 == 0 {
				if err = ctx.Err(); err != nil {
					break
				}
			}
			s.step(s.events.pop())
		}
		if err == nil {
			err = s.err
		}
	}
	for _, rep := range s.replicas {
		if rep.w != nil {
			rep.w.close(s)
		}
	}
	for _, w := range s.clientW {
		if w != nil {
			w.close(s)
		}
	}
	for _, g := range s.gateways {
		if g.w != nil {
			g.w.close(s)
		}
	}
	if e := s.writeServerLines(); err == nil {
		err = e
	}
	for _, hf := range s.files {
		if e := hf.close(); err == nil {
			err = e
		}
	}
	if s.truth != nil {
		if e := s.truth.close(); err == nil && e != nil {
			err = fmt.Errorf("writing truth: %w", e)
		}
	}
	if e := s.evals.close(); err == nil && e != nil {
		err = fmt.Errorf("writing evals: %w", e)
	}
	if err == nil {
		err = s.writeClocks()
	}
	if err == nil {
		err = s.dropTiers()
	}
	if err != nil {
		return nil, err
	}
	sum := s.summary()
	if stdout != nil {
		if err := sum.Print(stdout); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

func (s *sim) writeClocks() error {
	var b strings.Builder
	b.WriteString("tier,host,offset_ms,drift_ppm,time_format\n")
	for _, hf := range s.files {
		c := hf.clock
		fmt.Fprintf(&b, "%s,%s,%s,%s,%s\n", c.Tier, c.Host,
			strconv.FormatFloat(float64(c.Offset)/1e6, 'f', -1, 64),
			strconv.FormatFloat(c.DriftPPM, 'f', -1, 64), c.Format)
	}
	if err := os.WriteFile(filepath.Join(s.cfg.Out, "clocks.csv"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return nil
}
