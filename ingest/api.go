package ingest

import "github.com/infertrace/infertrace/ingest/record"

// The row types, errors and format registry live in ingest/record, shared
// with the readers in ingest/formats; they are named here too so that
// callers of Run need import ingest alone.

// Tier is a tier of the serving stack; see record.Tier.
type Tier = record.Tier

// The tiers.
const (
	Client  = record.Client
	Gateway = record.Gateway
	Server  = record.Server
)

// Tiers lists the tiers in their order.
var Tiers = record.Tiers

type (
	// Row is any of the row types.
	Row = record.Row
	// ClientRow is a request as the client saw it.
	ClientRow = record.ClientRow
	// GatewayRow is a request as the gateway saw it.
	GatewayRow = record.GatewayRow
	// ServerRow is a request as the inference server saw it.
	ServerRow = record.ServerRow
	// ParseError rejects one input unit (a line) at its position.
	ParseError = record.ParseError
	// FieldError says which field of a record is wrong.
	FieldError = record.FieldError
	// Mapping is a loaded and checked mapping file (--map FILE).
	Mapping = record.Mapping
)

// Decoder is the pull interface of every input format.
type Decoder[T Row] = record.Decoder[T]

// DocOut receives what a document format decodes.
type DocOut[T Row] = record.DocOut[T]

// The reasons a line is rejected; see record.
var (
	ErrSyntax        = record.ErrSyntax
	ErrMissingField  = record.ErrMissingField
	ErrBadValue      = record.ErrBadValue
	ErrBadTime       = record.ErrBadTime
	ErrLineTooLong   = record.ErrLineTooLong
	ErrUnknownFormat = record.ErrUnknownFormat
	ErrWrongFormat   = record.ErrWrongFormat
)

const (
	// MaxLineBytes is the longest line accepted.
	MaxLineBytes = record.MaxLineBytes
	// RawLimit is how much of a rejected line rejects.jsonl keeps.
	RawLimit = record.RawLimit
)

// Kind names the reason of a reject, for rejects.jsonl.
func Kind(err error) string { return record.Kind(err) }

// Formats lists the format names a tier accepts, for usage messages.
func Formats(t Tier) []string { return record.Formats(t) }

// FormatOption is a setting of the formats that take one (an NGINX
// log_format), offered as a flag of ingest and run.
type FormatOption = record.Option

// FormatOptions lists the settings the registered formats declare, by
// name: the keys of Options.FormatOptions.
func FormatOptions() []FormatOption { return record.Options() }

// LoadMapping reads and checks a mapping file: TOML (.toml) or YAML (.yaml,
// .yml) by its extension.
func LoadMapping(path string) (*Mapping, error) { return record.LoadMapping(path) }
