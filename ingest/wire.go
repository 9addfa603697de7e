package ingest

import (
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// Rows reach Parquet column by column: for each column of a batch, one
// slice of parquet.Values with their definition levels set (0 for NULL),
// written with ColumnWriter.WriteRowValues, and a row group flushed every
// rowGroupRows rows. The columns are read from the row types at their
// fields' offsets (rowColumns derives them from the fields and tags), and a
// zero time, an empty string or a zero HTTP status is NULL, as
// ingest/record/record.go says. This takes a third less CPU than GenericWriter.Write on structs
// with pointer fields, which walks every optional value of every row on its
// own; and GenericWriter.Write on value fields mishandles optional columns
// (v0.32): in a block of 64 rows where only some hold a value, it writes the
// empty ones as present zero values (a NULL first token becomes 1970-01-01).
//
// The wire types below give the files their schema: the same columns as
// ClientRow, GatewayRow and ServerRow, every optional column a pointer, so
// that a reader decoding into them reads NULL as nil. TestWireSchema keeps
// the wire and row schemas equal, newColumnWriter checks the columns against
// the schema, and TestNullRoundTrip proves NULL stays NULL at every offset
// of a 64-row block.

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
	LoadNS          *int64  `parquet:"load_ns,optional"`
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

// column is one leaf column of a row type: where its field is in the row
// and how its values are read. The columns are derived from the row type's
// fields and tags (rowColumns), so they cannot drift from the schema.
type column struct {
	name     string
	offset   uintptr // of the field in the row
	kind     columnKind
	optional bool
}

type columnKind uint8

const (
	int64Field   columnKind = iota + 1 // int64: a time, a line number; 0 is NULL when optional
	int32Field                         // int32: an HTTP status; 0 is NULL when optional
	stringField                        // string; "" is NULL when optional
	int64Pointer                       // *int64; nil is NULL
	int32Pointer                       // *int32; nil is NULL
	boolPointer                        // *bool; nil is NULL
)

// rowColumns returns the columns of row type T, in field order.
func rowColumns[T Row]() []column {
	typ := reflect.TypeFor[T]()
	cols := make([]column, typ.NumField())
	for i := range cols {
		f := typ.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		c := column{name: name, offset: f.Offset, optional: slices.Contains(strings.Split(opts, ","), "optional")}
		switch f.Type {
		case reflect.TypeFor[int64]():
			c.kind = int64Field
		case reflect.TypeFor[int32]():
			c.kind = int32Field
		case reflect.TypeFor[string]():
			c.kind = stringField
		case reflect.TypeFor[*int64]():
			c.kind = int64Pointer
		case reflect.TypeFor[*int32]():
			c.kind = int32Pointer
		case reflect.TypeFor[*bool]():
			c.kind = boolPointer
		default:
			panic(fmt.Sprintf("ingest: %s.%s: no column kind for %s", typ, f.Name, f.Type))
		}
		if c.kind >= int64Pointer && !c.optional {
			panic(fmt.Sprintf("ingest: %s.%s: a pointer column must be optional", typ, f.Name))
		}
		cols[i] = c
	}
	return cols
}

// fill sets vals[i] to the value of the column in rows[i]: at definition
// level 1 when present, a NULL at level 0 when absent; required values at 0.
// Fields are read at their offsets, which rowColumns took from the type.
func (c *column) fill(vals []parquet.Value, rows unsafe.Pointer, stride uintptr) {
	def := 0
	if c.optional {
		def = 1
	}
	at := func(i int) unsafe.Pointer { return unsafe.Add(rows, uintptr(i)*stride+c.offset) }
	switch c.kind {
	case int64Field:
		for i := range vals {
			if v := *(*int64)(at(i)); v != 0 || !c.optional {
				vals[i] = parquet.Int64Value(v)
				vals[i].SetDefinitionLevel(def)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	case int32Field:
		for i := range vals {
			if v := *(*int32)(at(i)); v != 0 || !c.optional {
				vals[i] = parquet.Int32Value(v)
				vals[i].SetDefinitionLevel(def)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	case stringField:
		for i := range vals {
			if v := *(*string)(at(i)); v != "" || !c.optional {
				// The value shares the string's bytes: column buffers and
				// dictionaries copy what they keep.
				vals[i] = parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(v), len(v)))
				vals[i].SetDefinitionLevel(def)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	case int64Pointer:
		for i := range vals {
			if p := *(**int64)(at(i)); p != nil {
				vals[i] = parquet.Int64Value(*p)
				vals[i].SetDefinitionLevel(1)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	case int32Pointer:
		for i := range vals {
			if p := *(**int32)(at(i)); p != nil {
				vals[i] = parquet.Int32Value(*p)
				vals[i].SetDefinitionLevel(1)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	case boolPointer:
		for i := range vals {
			if p := *(**bool)(at(i)); p != nil {
				vals[i] = parquet.BooleanValue(*p)
				vals[i].SetDefinitionLevel(1)
			} else {
				vals[i] = parquet.Value{}
			}
		}
	}
}

// partWriter writes batches of one tier's rows to one Parquet file.
type partWriter[T Row] interface {
	write(rows []T) error
	close() error
}

type columnWriter[T Row, W any] struct {
	w       *parquet.GenericWriter[W]
	cols    []column
	vals    []parquet.Value
	inGroup int // rows in the current row group
}

func (cw *columnWriter[T, W]) write(rows []T) error {
	for len(rows) > 0 {
		n := min(len(rows), rowGroupRows-cw.inGroup)
		if cap(cw.vals) < n {
			cw.vals = make([]parquet.Value, n)
		}
		vals := cw.vals[:n]
		for i, c := range cw.w.ColumnWriters() {
			cw.cols[i].fill(vals, unsafe.Pointer(&rows[0]), unsafe.Sizeof(rows[0]))
			if _, err := c.WriteRowValues(vals); err != nil {
				return err
			}
		}
		rows = rows[n:]
		if cw.inGroup += n; cw.inGroup == rowGroupRows {
			if err := cw.w.Flush(); err != nil {
				return err
			}
			cw.inGroup = 0
		}
	}
	clear(cw.vals) // drop the references to the rows' strings
	return nil
}

func (cw *columnWriter[T, W]) close() error { return cw.w.Close() }

func newColumnWriter[T Row, W any](out io.Writer, opts []parquet.WriterOption) partWriter[T] {
	w := parquet.NewGenericWriter[W](out, opts...)
	cols := rowColumns[T]()
	checkColumns[T](w.Schema(), cols)
	return &columnWriter[T, W]{w: w, cols: cols}
}

// checkColumns panics unless cols are the leaf columns of schema, in order.
func checkColumns[T Row](schema *parquet.Schema, cols []column) {
	paths := schema.Columns()
	ok := len(paths) == len(cols)
	for i := 0; ok && i < len(cols); i++ {
		ok = len(paths[i]) == 1 && paths[i][0] == cols[i].name
	}
	if !ok {
		panic(fmt.Sprintf("ingest: the columns of %T do not match schema %v", *new(T), paths))
	}
}

// newPartWriter returns the writer of T's columns.
func newPartWriter[T Row](out io.Writer, opts ...parquet.WriterOption) partWriter[T] {
	var w any
	switch any((*T)(nil)).(type) {
	case *ClientRow:
		w = newColumnWriter[ClientRow, clientWire](out, opts)
	case *GatewayRow:
		w = newColumnWriter[GatewayRow, gatewayWire](out, opts)
	case *ServerRow:
		w = newColumnWriter[ServerRow, serverWire](out, opts)
	}
	return w.(partWriter[T])
}
