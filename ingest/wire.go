package ingest

import (
	"io"

	"github.com/parquet-go/parquet-go"
)

// Rows reach Parquet through wire types: the same columns as ClientRow,
// GatewayRow and ServerRow, but every optional column a pointer (nil is
// NULL). parquet-go's batch write path (v0.32) mishandles optional columns
// backed by Go value types: in a block of 64 rows where only some hold a
// value, it writes the empty ones as present zero values (a NULL first token
// becomes 1970-01-01, a NULL error ''). Pointer columns take a path that
// checks each row, so the decoders fill plain values (zero means absent) and
// the sink converts a batch at a time, with the pointed-to values in one
// arena per batch, so converting allocates nothing once the arena has grown.
// TestWireSchema keeps the wire and row schemas equal; TestNullRoundTrip
// proves NULL stays NULL at every offset of a 64-row block.

type clientWire struct {
	RequestID    string  `parquet:"request_id"`
	Start        *int64  `parquet:"start_time,optional,timestamp(nanosecond:local)"`
	FirstToken   *int64  `parquet:"first_token_time,optional,timestamp(nanosecond:local)"`
	End          *int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	Status       *int32  `parquet:"status,optional"`
	Error        *string `parquet:"error,optional,dict"`
	Streamed     *bool   `parquet:"streamed,optional"`
	Model        *string `parquet:"model,optional,dict"`
	UseCase      *string `parquet:"use_case,optional,dict"`
	Client       *string `parquet:"client,optional,dict"`
	Region       *string `parquet:"region,optional,dict"`
	PromptTokens *int32  `parquet:"prompt_tokens,optional"`
	OutputTokens *int32  `parquet:"output_tokens,optional"`
	E2ENS        *int64  `parquet:"e2e_ns,optional"`
	TTFTNS       *int64  `parquet:"ttft_ns,optional"`
	ResponseID   *string `parquet:"response_id,optional"`
	TraceID      *string `parquet:"trace_id,optional"`
	Format       string  `parquet:"format,dict"`
	SourceFile   string  `parquet:"source_file,dict"`
	SourceLine   int64   `parquet:"source_line"`
}

type gatewayWire struct {
	RequestID         string  `parquet:"request_id"`
	Start             *int64  `parquet:"start_time,optional,timestamp(nanosecond:local)"`
	End               *int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	UpstreamStart     *int64  `parquet:"upstream_start_time,optional,timestamp(nanosecond:local)"`
	UpstreamEnd       *int64  `parquet:"upstream_end_time,optional,timestamp(nanosecond:local)"`
	UpstreamFirstByte *int64  `parquet:"upstream_first_byte_time,optional,timestamp(nanosecond:local)"`
	Status            *int32  `parquet:"status,optional"`
	Route             *string `parquet:"route,optional,dict"`
	Upstream          *string `parquet:"upstream,optional,dict"`
	Gateway           *string `parquet:"gateway,optional,dict"`
	Attempts          *int32  `parquet:"attempts,optional"`
	ResponseFlags     *string `parquet:"response_flags,optional,dict"`
	Model             *string `parquet:"model,optional,dict"`
	PromptTokens      *int32  `parquet:"prompt_tokens,optional"`
	OutputTokens      *int32  `parquet:"output_tokens,optional"`
	TTFTNS            *int64  `parquet:"ttft_ns,optional"`
	TraceID           *string `parquet:"trace_id,optional"`
	Format            string  `parquet:"format,dict"`
	SourceFile        string  `parquet:"source_file,dict"`
	SourceLine        int64   `parquet:"source_line"`
}

type serverWire struct {
	RequestID       *string `parquet:"request_id,optional"`
	EngineRequestID *string `parquet:"engine_request_id,optional"`
	TraceID         *string `parquet:"trace_id,optional"`
	Arrival         *int64  `parquet:"arrival_time,optional,timestamp(nanosecond:local)"`
	Scheduled       *int64  `parquet:"scheduled_time,optional,timestamp(nanosecond:local)"`
	FirstToken      *int64  `parquet:"first_token_time,optional,timestamp(nanosecond:local)"`
	End             *int64  `parquet:"end_time,optional,timestamp(nanosecond:local)"`
	E2ENS           *int64  `parquet:"e2e_ns,optional"`
	QueueNS         *int64  `parquet:"queue_ns,optional"`
	TTFTNS          *int64  `parquet:"ttft_ns,optional"`
	PrefillNS       *int64  `parquet:"prefill_ns,optional"`
	DecodeNS        *int64  `parquet:"decode_ns,optional"`
	InferenceNS     *int64  `parquet:"inference_ns,optional"`
	Model           *string `parquet:"model,optional,dict"`
	Replica         *string `parquet:"replica,optional,dict"`
	PromptTokens    *int32  `parquet:"prompt_tokens,optional"`
	OutputTokens    *int32  `parquet:"output_tokens,optional"`
	FinishReason    *string `parquet:"finish_reason,optional,dict"`
	Status          *int32  `parquet:"status,optional"`
	Error           *string `parquet:"error,optional,dict"`
	Format          string  `parquet:"format,dict"`
	SourceFile      string  `parquet:"source_file,dict"`
	SourceLine      int64   `parquet:"source_line"`
}

// nullArena holds the values a batch of wire rows points to. Growing a slice
// leaves earlier pointers on the old array, whose values stay as they were,
// so append is safe; reset reuses the storage once the batch is written.
type nullArena struct {
	i64 []int64
	i32 []int32
	str []string
}

func (a *nullArena) reset() {
	a.i64, a.i32, a.str = a.i64[:0], a.i32[:0], a.str[:0]
}

// time and the others return nil for the zero value, which the row types use
// for absent: a zero time, an empty string, a zero HTTP status.
func (a *nullArena) time(v int64) *int64 {
	if v == 0 {
		return nil
	}
	a.i64 = append(a.i64, v)
	return &a.i64[len(a.i64)-1]
}

func (a *nullArena) status(v int32) *int32 {
	if v == 0 {
		return nil
	}
	a.i32 = append(a.i32, v)
	return &a.i32[len(a.i32)-1]
}

func (a *nullArena) text(v string) *string {
	if v == "" {
		return nil
	}
	a.str = append(a.str, v)
	return &a.str[len(a.str)-1]
}

func toClientWire(w *clientWire, r *ClientRow, a *nullArena) {
	*w = clientWire{
		RequestID:    r.RequestID,
		Start:        a.time(r.Start),
		FirstToken:   a.time(r.FirstToken),
		End:          a.time(r.End),
		Status:       a.status(r.Status),
		Error:        a.text(r.Error),
		Streamed:     r.Streamed,
		Model:        a.text(r.Model),
		UseCase:      a.text(r.UseCase),
		Client:       a.text(r.Client),
		Region:       a.text(r.Region),
		PromptTokens: r.PromptTokens,
		OutputTokens: r.OutputTokens,
		E2ENS:        r.E2ENS,
		TTFTNS:       r.TTFTNS,
		ResponseID:   a.text(r.ResponseID),
		TraceID:      a.text(r.TraceID),
		Format:       r.Format,
		SourceFile:   r.SourceFile,
		SourceLine:   r.SourceLine,
	}
}

func toGatewayWire(w *gatewayWire, r *GatewayRow, a *nullArena) {
	*w = gatewayWire{
		RequestID:         r.RequestID,
		Start:             a.time(r.Start),
		End:               a.time(r.End),
		UpstreamStart:     a.time(r.UpstreamStart),
		UpstreamEnd:       a.time(r.UpstreamEnd),
		UpstreamFirstByte: a.time(r.UpstreamFirstByte),
		Status:            a.status(r.Status),
		Route:             a.text(r.Route),
		Upstream:          a.text(r.Upstream),
		Gateway:           a.text(r.Gateway),
		Attempts:          r.Attempts,
		ResponseFlags:     a.text(r.ResponseFlags),
		Model:             a.text(r.Model),
		PromptTokens:      r.PromptTokens,
		OutputTokens:      r.OutputTokens,
		TTFTNS:            r.TTFTNS,
		TraceID:           a.text(r.TraceID),
		Format:            r.Format,
		SourceFile:        r.SourceFile,
		SourceLine:        r.SourceLine,
	}
}

func toServerWire(w *serverWire, r *ServerRow, a *nullArena) {
	*w = serverWire{
		RequestID:       a.text(r.RequestID),
		EngineRequestID: a.text(r.EngineRequestID),
		TraceID:         a.text(r.TraceID),
		Arrival:         a.time(r.Arrival),
		Scheduled:       a.time(r.Scheduled),
		FirstToken:      a.time(r.FirstToken),
		End:             a.time(r.End),
		E2ENS:           r.E2ENS,
		QueueNS:         r.QueueNS,
		TTFTNS:          r.TTFTNS,
		PrefillNS:       r.PrefillNS,
		DecodeNS:        r.DecodeNS,
		InferenceNS:     r.InferenceNS,
		Model:           a.text(r.Model),
		Replica:         a.text(r.Replica),
		PromptTokens:    r.PromptTokens,
		OutputTokens:    r.OutputTokens,
		FinishReason:    a.text(r.FinishReason),
		Status:          a.status(r.Status),
		Error:           a.text(r.Error),
		Format:          r.Format,
		SourceFile:      r.SourceFile,
		SourceLine:      r.SourceLine,
	}
}

// partWriter writes batches of one tier's rows to one Parquet file.
type partWriter[T Row] interface {
	write(rows []T) error
	close() error
}

type wireWriter[T Row, W any] struct {
	w     *parquet.GenericWriter[W]
	conv  func(*W, *T, *nullArena)
	wire  []W
	nulls nullArena
}

func (ww *wireWriter[T, W]) write(rows []T) error {
	if cap(ww.wire) < len(rows) {
		ww.wire = make([]W, len(rows))
	}
	ww.wire = ww.wire[:len(rows)]
	ww.nulls.reset()
	for i := range rows {
		ww.conv(&ww.wire[i], &rows[i], &ww.nulls)
	}
	_, err := ww.w.Write(ww.wire)
	return err
}

func (ww *wireWriter[T, W]) close() error { return ww.w.Close() }

func newWireWriter[T Row, W any](out io.Writer, conv func(*W, *T, *nullArena), opts []parquet.WriterOption) partWriter[T] {
	return &wireWriter[T, W]{w: parquet.NewGenericWriter[W](out, opts...), conv: conv}
}

// newPartWriter returns the writer of T's wire type.
func newPartWriter[T Row](out io.Writer, opts ...parquet.WriterOption) partWriter[T] {
	var w any
	switch any((*T)(nil)).(type) {
	case *ClientRow:
		w = newWireWriter(out, toClientWire, opts)
	case *GatewayRow:
		w = newWireWriter(out, toGatewayWire, opts)
	case *ServerRow:
		w = newWireWriter(out, toServerWire, opts)
	}
	return w.(partWriter[T])
}
