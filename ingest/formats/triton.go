package formats

import (
	"bytes"
	"io"
	"strconv"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// The triton server format: the trace file NVIDIA Triton writes with
// --trace-config triton,file=F (level=TIMESTAMPS): a JSON array of
// fragments, compact, that may lack its closing ']' when the server is
// still writing it or died. Rotated files F.0, F.1, … are complete arrays of
// their own; give them as one glob. Fragments of one trace share its "id"
// and may be interleaved with other traces and out of time order:
//
//	{"id":1,"model_name":"m","model_version":1,"request_id":"r1"}   info (request_id only when set)
//	{"id":3,"model_name":"pre","model_version":1,"parent_id":2}     info of an ensemble/BLS child
//	{"id":1,"timestamps":[{"name":"QUEUE_START","ns":1234567890327529}]}
//
// One input unit is one trace id; its line is the line of its first
// fragment. The timestamps are steady-clock nanoseconds with no wall-clock
// anchor, so a row holds durations only and every instant column (arrival,
// scheduled, first token, end) stays NULL: absolute times come from the
// gateway record the row joins to by request ID.
//
//	E2ENS        end − start, end = HTTP_SEND_END, else GRPC_SEND_END, else REQUEST_END;
//	             start = HTTP_RECV_START, else GRPC_WAITREAD_END, else REQUEST_START
//	QueueNS      COMPUTE_START − QUEUE_START (Triton's scheduler queue only)
//	InferenceNS  COMPUTE_END − COMPUTE_START
//	RequestID    the info fragment's request_id (the KServe body "id"), when set
//	EngineRequestID the trace id; "P/ID" for a child of trace P
//	Model        model_name (model_version is not kept: Replica names a server instance)
//
// A trace whose info fragment (the one with model_name) is missing, or names
// no model, because
// it was written to a file rotated away or not given, or was lost when the
// server died, keeps the durations its timestamps give, with Model NULL (the
// model unknown) and no RequestID (also in the info fragment): its row joins
// no gateway record, but it counts in the server's own distributions. A
// trace with neither an info fragment nor a duration is rejected
// (missing_field model_name), as is one whose info fragment names no model
// and that gives no duration: either would be a row of nothing.
//
// When a name appears more than once in a trace, starts take the earliest
// and ends the latest. Children of ensembles and BLS (parent_id) are kept
// as rows with an EngineRequestID "P/ID" and no RequestID, so that they never
// join to a gateway record on their own: the analysis can reach them from
// their parent's EngineRequestID. Their Model tells which step (for an LLM
// ensemble, the engine step) the queue and compute times belong to.
// There is no TTFT, no token count, no status and no prefill/decode split;
// for LLM backends the engine's own batching queue is inside COMPUTE.
//
// Memory: a trace is held only until it is complete (REQUEST_END and
// HTTP_SEND_END or GRPC_SEND_END read, or REQUEST_END for a child), then
// emitted; the rest are emitted at the end of the file. At most
// tritonMaxOpen traces are held: past that the oldest open trace is emitted
// as it is. A fragment of a trace emitted shortly before (a later response
// of a decoupled model) is rejected as a unit of its own rather than merged.

const formatTriton = "triton"

func init() {
	record.RegisterDoc[record.ServerRow](record.Server, formatTriton, sniffTriton, parseTriton)
}

const (
	tritonMaxOpen = 1 << 16
	tritonRecent  = 4096
)

// sniffTriton accepts the start of a Triton trace array.
func sniffTriton(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '[' {
		return false
	}
	rest := bytes.TrimSpace(line[1:])
	return bytes.HasPrefix(rest, []byte(`{"id":`)) &&
		(bytes.Contains(rest, []byte(`"timestamps":[`)) || bytes.Contains(rest, []byte(`"model_name":`)))
}

// The timestamps a row uses.
const (
	tHTTPRecvStart = iota
	tGRPCWaitreadEnd
	tRequestStart
	tQueueStart
	tComputeStart
	tComputeEnd
	tRequestEnd
	tHTTPSendEnd
	tGRPCSendEnd
	tNames
)

func tritonName(name []byte) (idx int, end bool) {
	switch string(name) {
	case "HTTP_RECV_START":
		return tHTTPRecvStart, false
	case "GRPC_WAITREAD_END":
		return tGRPCWaitreadEnd, false
	case "REQUEST_START":
		return tRequestStart, false
	case "QUEUE_START":
		return tQueueStart, false
	case "COMPUTE_START":
		return tComputeStart, false
	case "COMPUTE_END":
		return tComputeEnd, true
	case "REQUEST_END":
		return tRequestEnd, true
	case "HTTP_SEND_END":
		return tHTTPSendEnd, true
	case "GRPC_SEND_END":
		return tGRPCSendEnd, true
	}
	return -1, false
}

type tritonTrace struct {
	id        uint64
	line      int64
	info      bool
	model     string
	requestID string
	parent    uint64
	hasParent bool
	ts        [tNames]int64
	have      uint16
	err       error
	emitted   bool
}

func (t *tritonTrace) has(i int) bool { return t.have&(1<<i) != 0 }

func (t *tritonTrace) complete() bool {
	return t.has(tRequestEnd) && (t.has(tHTTPSendEnd) || t.has(tGRPCSendEnd) || t.hasParent)
}

type tritonState struct {
	out    *record.DocOut[record.ServerRow]
	labels scan.Labels
	open   map[uint64]*tritonTrace
	order  []*tritonTrace // open traces by first fragment; emitted ones are skipped
	head   int
	// recent remembers the ids emitted last, to tell a late fragment.
	recent    map[uint64]struct{}
	recentIDs [tritonRecent]uint64
	recentN   int
}

func parseTriton(r io.Reader, file string, out *record.DocOut[record.ServerRow]) error {
	st := &tritonState{out: out, open: map[uint64]*tritonTrace{}, recent: map[uint64]struct{}{}}
	sc := newSrvElems(r)
	for {
		el, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if ferr := st.flush(); ferr != nil {
				return ferr
			}
			return err
		}
		if done, err := srvElemError(el, out); done || err != nil {
			if err != nil {
				return err
			}
			if el.notArray {
				break
			}
			continue
		}
		if err := st.fragment(el.data, el.line); err != nil {
			return err
		}
	}
	return st.flush()
}

func (st *tritonState) fragment(data []byte, line int64) error {
	var id uint64
	var haveID bool
	var model, version, reqID, parent, stamps scan.Value
	err := scan.Object(data, func(k []byte, esc bool, v scan.Value) error {
		switch string(scan.MemberKey(k, esc)) {
		case "id":
			n, ok, err := scan.Integer("id", v, 0, 1<<63-1)
			if err != nil {
				return err
			}
			id, haveID = uint64(n), ok
		case "model_name":
			model = v
		case "model_version":
			version = v
		case "request_id":
			reqID = v
		case "parent_id":
			parent = v
		case "timestamps":
			stamps = v
		}
		return nil
	})
	if err == nil && !haveID {
		err = record.Missing("id")
	}
	if err != nil {
		return st.out.Done(line, data, err)
	}
	t := st.open[id]
	if t == nil {
		if _, late := st.recent[id]; late {
			return st.out.Done(line, data, record.FieldErrorf("id", record.ErrBadValue,
				"a fragment of trace %d after the trace was complete; not merged", id))
		}
		t = &tritonTrace{id: id, line: line}
		st.open[id] = t
		st.order = append(st.order, t)
	}
	if t.err == nil {
		t.err = st.apply(t, model, version, reqID, parent, stamps)
	}
	if t.complete() {
		if err := st.emit(t); err != nil {
			return err
		}
	}
	for len(st.open) > tritonMaxOpen {
		if err := st.emit(st.oldest()); err != nil {
			return err
		}
	}
	return nil
}

func (st *tritonState) apply(t *tritonTrace, model, version, reqID, parent, stamps scan.Value) error {
	if model.Kind != 0 {
		t.info = true
		if err := st.labels.Label("model_name", model, &t.model); err != nil {
			return err
		}
		if version.Kind != 0 {
			if _, _, err := scan.TextBytes("model_version", version); err != nil {
				return err
			}
		}
	}
	if reqID.Kind != 0 {
		if err := scan.Text("request_id", reqID, &t.requestID); err != nil {
			return err
		}
	}
	if parent.Kind != 0 {
		n, ok, err := scan.Integer("parent_id", parent, 0, 1<<63-1)
		if err != nil {
			return err
		}
		if ok {
			t.parent, t.hasParent = uint64(n), true
		}
	}
	if stamps.Kind == 0 || stamps.Kind == scan.Null {
		return nil
	}
	if stamps.Kind != scan.Array {
		return record.FieldErrorf("timestamps", record.ErrBadValue, "want an array, got %s", scan.KindName(stamps.Kind))
	}
	return srvEachValue(stamps.Raw, func(v scan.Value) error {
		if v.Kind != scan.ObjectKind {
			return record.FieldErrorf("timestamps", record.ErrBadValue, "want objects, got %s", scan.KindName(v.Kind))
		}
		var name []byte
		var ns int64
		var haveNS bool
		err := scan.Object(v.Raw, func(k []byte, esc bool, v scan.Value) error {
			switch string(scan.MemberKey(k, esc)) {
			case "name":
				b, _, err := scan.TextBytes("timestamps.name", v)
				name = b
				return err
			case "ns":
				n, ok, err := scan.Integer("timestamps.ns", v, 0, 1<<63-1)
				ns, haveNS = n, ok
				return err
			}
			return nil
		})
		if err != nil {
			return err
		}
		i, end := tritonName(name)
		if i < 0 {
			return nil // a timestamp no column uses (COMPUTE_INPUT_END, custom activities…)
		}
		if !haveNS {
			return record.FieldErrorf("timestamps.ns", record.ErrMissingField, "for %s", name)
		}
		if !t.has(i) || (end && ns > t.ts[i]) || (!end && ns < t.ts[i]) {
			t.ts[i] = ns
		}
		t.have |= 1 << i
		return nil
	})
}

// oldest returns the open trace whose first fragment came first.
func (st *tritonState) oldest() *tritonTrace {
	for st.head < len(st.order) {
		t := st.order[st.head]
		st.order[st.head] = nil
		st.head++
		if !t.emitted {
			return t
		}
	}
	return nil
}

func (st *tritonState) emit(t *tritonTrace) error {
	t.emitted = true
	delete(st.open, t.id)
	if old := st.recentIDs[st.recentN%tritonRecent]; st.recentN >= tritonRecent {
		delete(st.recent, old)
	}
	st.recentIDs[st.recentN%tritonRecent] = t.id
	st.recentN++
	st.recent[t.id] = struct{}{}
	// Drop emitted traces from the front of order, and compact it now and
	// then so that it holds about as many traces as are open.
	for st.head < len(st.order) && st.order[st.head].emitted {
		st.order[st.head] = nil
		st.head++
	}
	if st.head > 1024 && st.head > len(st.order)/2 {
		n := copy(st.order, st.order[st.head:])
		clear(st.order[n:])
		st.order, st.head = st.order[:n], 0
	}
	if len(st.order)-st.head > 4*len(st.open)+1024 {
		kept := st.order[:0]
		for _, o := range st.order[st.head:] {
			if !o.emitted {
				kept = append(kept, o)
			}
		}
		clear(st.order[len(kept):])
		st.order, st.head = kept, 0
	}
	err := t.err
	if err == nil {
		err = st.fill(t, st.out.Next())
	}
	if err != nil {
		return st.out.Done(t.line, []byte(`{"id":`+strconv.FormatUint(t.id, 10)+`}`), err)
	}
	return st.out.Done(t.line, nil, nil)
}

func (st *tritonState) fill(t *tritonTrace, r *record.ServerRow) error {
	r.Format = formatTriton
	r.Model = t.model // "" (NULL) without an info fragment: see the file's comment
	if t.hasParent {
		r.EngineRequestID = strconv.FormatUint(t.parent, 10) + "/" + strconv.FormatUint(t.id, 10)
	} else {
		r.EngineRequestID = strconv.FormatUint(t.id, 10)
		r.RequestID = t.requestID
	}
	first := func(idx ...int) (int64, bool) {
		for _, i := range idx {
			if t.has(i) {
				return t.ts[i], true
			}
		}
		return 0, false
	}
	var err error
	start, ok1 := first(tHTTPRecvStart, tGRPCWaitreadEnd, tRequestStart)
	end, ok2 := first(tHTTPSendEnd, tGRPCSendEnd, tRequestEnd)
	if ok1 && ok2 {
		if r.E2ENS, err = scan.Between("e2e", start, end); err != nil {
			return err
		}
	}
	if t.has(tQueueStart) && t.has(tComputeStart) {
		if r.QueueNS, err = scan.Between("queue", t.ts[tQueueStart], t.ts[tComputeStart]); err != nil {
			return err
		}
	}
	if t.has(tComputeStart) && t.has(tComputeEnd) {
		if r.InferenceNS, err = scan.Between("compute", t.ts[tComputeStart], t.ts[tComputeEnd]); err != nil {
			return err
		}
	}
	if t.model == "" && r.E2ENS == nil && r.QueueNS == nil && r.InferenceNS == nil {
		return record.FieldErrorf("model_name", record.ErrMissingField,
			"trace %d has no model name and no pair of timestamps that gives a duration", t.id)
	}
	return nil
}

// flush emits the traces still open at the end of the file, in the order
// their first fragments came.
func (st *tritonState) flush() error {
	for t := st.oldest(); t != nil; t = st.oldest() {
		if err := st.emit(t); err != nil {
			return err
		}
	}
	return nil
}
