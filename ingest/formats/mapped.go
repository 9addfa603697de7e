package formats

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
	"github.com/infertrace/infertrace/internal/strictconf"
)

// The jsonl format reads JSON objects, one per line, of any shape, through a
// mapping file (--map FILE, TOML or YAML by its extension) that says where
// each column of the tier's rows is:
//
//	tier = "client"
//	[fields]
//	request_id = "req.id"
//	start = { path = "timing.start_ms", unit = "ms", clock = "client wall clock" }
//	end = { path = "timing.end_ms", unit = "ms" }
//	first_token = { path = "timing.ttft_at", unit = "rfc3339" }
//	model = "req.model"
//	output_tokens = "usage.completion_tokens"
//	e2e = { path = "latency", unit = "s" }
//
// A path is member names joined by dots, each optionally followed by array
// indices: "choices[0].usage.total". Times take a unit: rfc3339; s, ms, us
// or ns since the Unix epoch; or a Go time layout (2006-01-02 15:04:05.000,
// read in the zone given with --timezone when it has no zone, else in UTC,
// the jsonl default, which the manifest then states per file; an rfc3339
// time without a zone is read in --timezone's zone, else rejected).
// Without a unit a time is read as the native formats read them (RFC 3339,
// or epoch seconds). Durations (e2e,
// ttft) need a unit: s, ms, us or ns. clock is a note for the reader (which
// host's clock the time is on); ingest never mixes clocks either way.
//
// The mapping is checked when it is loaded (unknown fields, bad units,
// request_id, start and end unmapped are errors naming the file and key)
// and against each input's first line that is a JSON object: every mapped
// path must be there (null counts), or the whole file fails with an error
// naming the file, the line and the path; later lines may omit optional
// fields. A mapping serves any tier (tier = "client", "gateway" or
// "server"); each tier has its table of mappable columns below.

const formatJSONL = "jsonl"

func init() {
	record.RegisterLine(record.Client, formatJSONL, nil, func() record.LineParser[record.ClientRow] { return noMapping[record.ClientRow]{} })
	record.RegisterLine(record.Gateway, formatJSONL, nil, func() record.LineParser[record.GatewayRow] { return noMapping[record.GatewayRow]{} })
	record.RegisterLine(record.Server, formatJSONL, nil, func() record.LineParser[record.ServerRow] { return noMapping[record.ServerRow]{} })
	record.RegisterMapping(formatJSONL, loadMappingFormat)
}

// arrayIndex is an index in a mapped path: "[0]" in "choices[0].id".
var arrayIndex = regexp.MustCompile(`\[[0-9]+\]`)

// loadMappingFormat loads a mapping file with the format of the inputs read
// through it: a format of its own (workers keep one parser per format),
// checking each file's first JSON object line for the mapped paths.
func loadMappingFormat(path string) (*record.Mapping, error) {
	m, err := loadMapping(path)
	if err != nil {
		return nil, err
	}
	f := &record.Format{Tier: m.Tier, Name: formatJSONL}
	for _, mf := range m.fields {
		if mf.zoneless {
			f.DefaultZone = "UTC"
		}
		if mf.name != "error" { // free text: it can quote a request
			f.ReadPaths = append(f.ReadPaths, arrayIndex.ReplaceAllString(mf.path, "[]"))
		}
	}
	switch m.Tier {
	case record.Client:
		f.NewParser = func() record.LineParser[record.ClientRow] { return newMappedParser(m, clientTargets) }
	case record.Gateway:
		f.NewParser = func() record.LineParser[record.GatewayRow] { return newMappedParser(m, gatewayTargets) }
	case record.Server:
		f.NewParser = func() record.LineParser[record.ServerRow] { return newMappedParser(m, serverTargets) }
	}
	return &record.Mapping{File: m.File, Tier: m.Tier, Format: f, Check: m.check}, nil
}

// noMapping is the registered jsonl parser, for NewDecoder: without a
// mapping nothing can be decoded. Run refuses jsonl without a mapping at
// start-up.
type noMapping[T record.Row] struct{}

func (noMapping[T]) ParseLine([]byte, *record.RowQueue[T]) error {
	return errors.New("the jsonl format needs a mapping file (--map FILE)")
}

// mapping is a loaded and checked mapping file.
type mapping struct {
	File   string // as given, for messages
	Tier   record.Tier
	fields []mappedField
	root   *pathNode
}

type fieldKind uint8

const (
	kindText fieldKind = iota + 1
	kindLabel
	kindURL // a label without its query (scan.URLLabel)
	kindTime
	kindDuration
	kindCount
	kindStatus
	kindBool
)

// A target is a row column a mapping can fill: its kind and where it is in
// the row (*string for text and labels, *int64 for times, **int64 for
// durations in ns, **int32 for counts, *int32 for the HTTP status, **bool
// for flags).
type target[T record.Row] struct {
	kind fieldKind
	dst  func(*T) any
}

var clientTargets = map[string]target[record.ClientRow]{
	"request_id":    {kindText, func(r *record.ClientRow) any { return &r.RequestID }},
	"response_id":   {kindText, func(r *record.ClientRow) any { return &r.ResponseID }},
	"trace_id":      {kindText, func(r *record.ClientRow) any { return &r.TraceID }},
	"start":         {kindTime, func(r *record.ClientRow) any { return &r.Start }},
	"first_token":   {kindTime, func(r *record.ClientRow) any { return &r.FirstToken }},
	"end":           {kindTime, func(r *record.ClientRow) any { return &r.End }},
	"e2e":           {kindDuration, func(r *record.ClientRow) any { return &r.E2ENS }},
	"ttft":          {kindDuration, func(r *record.ClientRow) any { return &r.TTFTNS }},
	"status":        {kindStatus, func(r *record.ClientRow) any { return &r.Status }},
	"error":         {kindLabel, func(r *record.ClientRow) any { return &r.Error }},
	"streamed":      {kindBool, func(r *record.ClientRow) any { return &r.Streamed }},
	"model":         {kindLabel, func(r *record.ClientRow) any { return &r.Model }},
	"use_case":      {kindLabel, func(r *record.ClientRow) any { return &r.UseCase }},
	"client":        {kindLabel, func(r *record.ClientRow) any { return &r.Client }},
	"region":        {kindLabel, func(r *record.ClientRow) any { return &r.Region }},
	"prompt_tokens": {kindCount, func(r *record.ClientRow) any { return &r.PromptTokens }},
	"output_tokens": {kindCount, func(r *record.ClientRow) any { return &r.OutputTokens }},
}

var gatewayTargets = map[string]target[record.GatewayRow]{
	"request_id":          {kindText, func(r *record.GatewayRow) any { return &r.RequestID }},
	"trace_id":            {kindText, func(r *record.GatewayRow) any { return &r.TraceID }},
	"start":               {kindTime, func(r *record.GatewayRow) any { return &r.Start }},
	"end":                 {kindTime, func(r *record.GatewayRow) any { return &r.End }},
	"upstream_start":      {kindTime, func(r *record.GatewayRow) any { return &r.UpstreamStart }},
	"upstream_first_byte": {kindTime, func(r *record.GatewayRow) any { return &r.UpstreamFirstByte }},
	"upstream_end":        {kindTime, func(r *record.GatewayRow) any { return &r.UpstreamEnd }},
	"ttft":                {kindDuration, func(r *record.GatewayRow) any { return &r.TTFTNS }},
	"status":              {kindStatus, func(r *record.GatewayRow) any { return &r.Status }},
	"route":               {kindURL, func(r *record.GatewayRow) any { return &r.Route }},
	"upstream":            {kindURL, func(r *record.GatewayRow) any { return &r.Upstream }},
	"gateway":             {kindLabel, func(r *record.GatewayRow) any { return &r.Gateway }},
	"response_flags":      {kindLabel, func(r *record.GatewayRow) any { return &r.ResponseFlags }},
	"model":               {kindLabel, func(r *record.GatewayRow) any { return &r.Model }},
	"attempts":            {kindCount, func(r *record.GatewayRow) any { return &r.Attempts }},
	"prompt_tokens":       {kindCount, func(r *record.GatewayRow) any { return &r.PromptTokens }},
	"output_tokens":       {kindCount, func(r *record.GatewayRow) any { return &r.OutputTokens }},
}

var serverTargets = map[string]target[record.ServerRow]{
	"request_id":        {kindText, func(r *record.ServerRow) any { return &r.RequestID }},
	"engine_request_id": {kindText, func(r *record.ServerRow) any { return &r.EngineRequestID }},
	"trace_id":          {kindText, func(r *record.ServerRow) any { return &r.TraceID }},
	"arrival":           {kindTime, func(r *record.ServerRow) any { return &r.Arrival }},
	"scheduled":         {kindTime, func(r *record.ServerRow) any { return &r.Scheduled }},
	"first_token":       {kindTime, func(r *record.ServerRow) any { return &r.FirstToken }},
	"end":               {kindTime, func(r *record.ServerRow) any { return &r.End }},
	"e2e":               {kindDuration, func(r *record.ServerRow) any { return &r.E2ENS }},
	"queue":             {kindDuration, func(r *record.ServerRow) any { return &r.QueueNS }},
	"ttft":              {kindDuration, func(r *record.ServerRow) any { return &r.TTFTNS }},
	"prefill":           {kindDuration, func(r *record.ServerRow) any { return &r.PrefillNS }},
	"decode":            {kindDuration, func(r *record.ServerRow) any { return &r.DecodeNS }},
	"inference":         {kindDuration, func(r *record.ServerRow) any { return &r.InferenceNS }},
	"status":            {kindStatus, func(r *record.ServerRow) any { return &r.Status }},
	"error":             {kindLabel, func(r *record.ServerRow) any { return &r.Error }},
	"model":             {kindLabel, func(r *record.ServerRow) any { return &r.Model }},
	"replica":           {kindLabel, func(r *record.ServerRow) any { return &r.Replica }},
	"finish_reason":     {kindLabel, func(r *record.ServerRow) any { return &r.FinishReason }},
	"prompt_tokens":     {kindCount, func(r *record.ServerRow) any { return &r.PromptTokens }},
	"output_tokens":     {kindCount, func(r *record.ServerRow) any { return &r.OutputTokens }},
}

// mappableByTier gives the kind of each mappable column of a tier, for
// checking a mapping file.
var mappableByTier = map[record.Tier]map[string]fieldKind{
	record.Client: kinds(clientTargets), record.Gateway: kinds(gatewayTargets), record.Server: kinds(serverTargets),
}

func kinds[T record.Row](t map[string]target[T]) map[string]fieldKind {
	m := make(map[string]fieldKind, len(t))
	for name, tg := range t {
		m[name] = tg.kind
	}
	return m
}

// requiredByTier are the columns every mapping of a tier must map, as the
// native formats require them.
var requiredByTier = map[record.Tier][]string{
	record.Client:  {"request_id", "start", "end"},
	record.Gateway: {"request_id", "start", "end"},
	record.Server:  {"request_id", "arrival"},
}

type mappedField struct {
	name   string // the row field: "start"
	kind   fieldKind
	path   string // as written: "timing.start_ms"
	unit   string
	scale  int64  // ns per unit for epoch and duration units
	layout string // a Go time layout
	// zoneless: the layout has no zone (%z-like element): its times are
	// read in the zone given (--timezone), else in UTC, the jsonl default.
	zoneless bool
	clock    string
}

// label names the field and its path in row errors.
func (f *mappedField) label() string { return f.name + " (" + f.path + ")" }

// pathNode is one step of the mapped paths, shared by paths with a common
// prefix: a member name, or an array index (index >= 0).
type pathNode struct {
	key      string
	index    int
	children []*pathNode
	fields   []int // the fields whose path ends here
}

// loadMapping reads and checks a mapping file: TOML (.toml) or YAML (.yaml,
// .yml). Errors name the file and the offending key.
func loadMapping(path string) (*mapping, error) {
	var raw struct {
		Tier   string         `toml:"tier" yaml:"tier"`
		Fields map[string]any `toml:"fields" yaml:"fields"`
	}
	fail := func(format string, args ...any) (*mapping, error) {
		return nil, fmt.Errorf("mapping %s: %s", path, fmt.Sprintf(format, args...))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mapping: %w", err)
	}
	undecoded, err := strictconf.Decode(path, data, &raw)
	if err != nil {
		return fail("%v", err)
	}
	for _, key := range undecoded { // the fields' own keys are checked below
		if key != "fields" && !strings.HasPrefix(key, "fields.") {
			return fail("%s: unknown key (known: tier, fields)", key)
		}
	}
	m := &mapping{File: path, Tier: record.Tier(raw.Tier), root: &pathNode{index: -1}}
	switch m.Tier {
	case record.Client, record.Gateway, record.Server:
	case "":
		return fail("tier: missing (tier = \"client\", \"gateway\" or \"server\")")
	default:
		return fail("tier %q: unknown (want client, gateway or server)", raw.Tier)
	}
	known := mappableByTier[m.Tier]
	names := make([]string, 0, len(raw.Fields))
	for name := range raw.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		kind, ok := known[name]
		if !ok {
			return fail("fields.%s: unknown field (known: %s)", name, strings.Join(sortedKeys(known), ", "))
		}
		f, err := parseMappedField(name, kind, raw.Fields[name])
		if err != nil {
			return fail("fields.%s%v", name, err)
		}
		steps, err := parsePath(f.path)
		if err != nil {
			return fail("fields.%s: path %q: %v", name, f.path, err)
		}
		m.fields = append(m.fields, f)
		m.root.add(steps, len(m.fields)-1)
	}
	required := requiredByTier[m.Tier]
	for _, name := range required {
		if _, ok := raw.Fields[name]; !ok {
			return fail("fields.%s: missing (%s must be mapped)", name, strings.Join(required, ", "))
		}
	}
	return m, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// parseMappedField reads "path" or {path, unit, clock}; errors start with
// the key suffix (".unit: …" or ": …").
func parseMappedField(name string, kind fieldKind, v any) (mappedField, error) {
	f := mappedField{name: name, kind: kind}
	switch v := v.(type) {
	case string:
		f.path = v
	case map[string]any:
		for _, k := range sortedKeys(v) {
			s, ok := v[k].(string)
			if !ok {
				return f, fmt.Errorf(".%s: want a string, got %T", k, v[k])
			}
			switch k {
			case "path":
				f.path = s
			case "unit":
				f.unit = s
			case "clock":
				f.clock = s
			default:
				return f, fmt.Errorf(".%s: unknown key (known: path, unit, clock)", k)
			}
		}
		if f.path == "" {
			return f, errors.New(".path: missing")
		}
	default:
		return f, fmt.Errorf(": want a path string or a table {path, unit, clock}, got %T", v)
	}
	switch kind {
	case kindTime:
		switch {
		case f.unit == "" || f.unit == "rfc3339":
		case strings.Contains(f.unit, "2006") || strings.Contains(f.unit, "15:04"):
			ref := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
			if _, err := time.Parse(f.unit, ref.Format(f.unit)); err != nil {
				return f, fmt.Errorf(".unit: bad Go time layout %q: %v", f.unit, err)
			}
			f.layout = f.unit
			// A layout with a zone keeps a reference time's offset.
			cet := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("", 3600))
			t, err := time.Parse(f.layout, cet.Format(f.layout))
			_, off := t.Zone()
			f.zoneless = err != nil || off != 3600
		default:
			scale, ok := lgUnitScale(f.unit)
			if !ok {
				return f, fmt.Errorf(".unit: unknown unit %q (want rfc3339, s, ms, us, ns or a Go time layout like 2006-01-02T15:04:05Z07:00)", f.unit)
			}
			f.scale = scale
		}
	case kindDuration:
		scale, ok := lgUnitScale(f.unit)
		if !ok {
			if f.unit == "" {
				return f, errors.New(".unit: missing (a duration needs s, ms, us or ns)")
			}
			return f, fmt.Errorf(".unit: unknown unit %q (want s, ms, us or ns)", f.unit)
		}
		f.scale = scale
	default:
		if f.unit != "" {
			return f, errors.New(".unit: only times and durations have a unit")
		}
	}
	return f, nil
}

type pathStep struct {
	key   string
	index int // >= 0 for an array index
}

// parsePath reads a.b[0].c.
func parsePath(p string) ([]pathStep, error) {
	if p == "" {
		return nil, errors.New("empty")
	}
	var steps []pathStep
	for _, seg := range strings.Split(p, ".") {
		name, rest, _ := strings.Cut(seg, "[")
		if name == "" {
			return nil, errors.New("empty member name")
		}
		steps = append(steps, pathStep{key: name, index: -1})
		if rest == "" && strings.Contains(seg, "[") {
			return nil, errors.New("'[' without an index")
		}
		for rest != "" {
			idx, after, ok := strings.Cut(rest, "]")
			n, err := strconv.Atoi(idx)
			if !ok || err != nil || n < 0 {
				return nil, fmt.Errorf("bad array index [%s", rest)
			}
			steps = append(steps, pathStep{index: n})
			if after == "" {
				break
			}
			if after[0] != '[' {
				return nil, fmt.Errorf("unexpected %q after ]", after)
			}
			rest = after[1:]
		}
	}
	return steps, nil
}

func (n *pathNode) add(steps []pathStep, field int) {
	if len(steps) == 0 {
		n.fields = append(n.fields, field)
		return
	}
	for _, c := range n.children {
		if c.key == steps[0].key && c.index == steps[0].index {
			c.add(steps[1:], field)
			return
		}
	}
	c := &pathNode{key: steps[0].key, index: steps[0].index}
	n.children = append(n.children, c)
	c.add(steps[1:], field)
}

// check says which mapped path a line lacks.
func (m *mapping) check(line []byte) error {
	found := make([]bool, len(m.fields))
	m.root.walk(scan.Value{Kind: scan.ObjectKind, Raw: line}, func(i int, _ scan.Value) error {
		found[i] = true
		return nil
	})
	for i, ok := range found {
		if !ok {
			f := &m.fields[i]
			return &record.FieldError{Field: "fields." + f.name, Err: record.ErrMissingField, Msg: "path " + f.path + " is not in the line"}
		}
	}
	return nil
}

// walk calls fn for every mapped field whose path is in v, with its value.
// A null on the way marks every path below it as present, with a null
// value (which sets nothing).
func (n *pathNode) walk(v scan.Value, fn func(field int, v scan.Value) error) error {
	for _, i := range n.fields {
		if err := fn(i, v); err != nil {
			return err
		}
	}
	if len(n.children) == 0 {
		return nil
	}
	switch v.Kind {
	case scan.Null:
		for _, c := range n.children {
			if err := c.walk(v, fn); err != nil {
				return err
			}
		}
	case scan.ObjectKind:
		return scan.Object(v.Raw, func(k []byte, esc bool, e scan.Value) error {
			key := scan.MemberKey(k, esc)
			for _, c := range n.children {
				if c.index < 0 && c.key == string(key) {
					if err := c.walk(e, fn); err != nil {
						return err
					}
				}
			}
			return nil
		})
	case scan.Array:
		return scan.Elements("", v, func(i int, e scan.Value) error {
			for _, c := range n.children {
				if c.index == i {
					if err := c.walk(e, fn); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	return nil
}

// mappedParser decodes rows of one tier through a mapping.
type mappedParser[T record.Row] struct {
	m       *mapping
	targets []target[T] // by field index
	labels  scan.Labels
}

func newMappedParser[T record.Row](m *mapping, table map[string]target[T]) *mappedParser[T] {
	p := &mappedParser[T]{m: m, targets: make([]target[T], len(m.fields))}
	for i, f := range m.fields {
		p.targets[i] = table[f.name] // loadMapping let only this tier's names through
	}
	return p
}

func (p *mappedParser[T]) ParseLine(line []byte, out *record.RowQueue[T]) error {
	r := out.Next()
	err := p.m.root.walk(scan.Value{Kind: scan.ObjectKind, Raw: line}, func(i int, v scan.Value) error {
		return p.set(i, v, r, out.Zone)
	})
	if err != nil {
		return err
	}
	for _, name := range requiredByTier[p.m.Tier] {
		for i := range p.m.fields {
			if f := &p.m.fields[i]; f.name == name && !isSet(p.targets[i].dst(r)) {
				return record.Missing(f.label())
			}
		}
	}
	setFormat(r, formatJSONL)
	return nil
}

// isSet says whether a required column got a value.
func isSet(dst any) bool {
	switch d := dst.(type) {
	case *string:
		return *d != ""
	case *int64:
		return *d != 0
	}
	return true
}

func setFormat[T record.Row](row *T, name string) {
	switch r := any(row).(type) {
	case *record.ClientRow:
		r.Format = name
	case *record.GatewayRow:
		r.Format = name
	case *record.ServerRow:
		r.Format = name
	}
}

// set converts one mapped value into its column.
func (p *mappedParser[T]) set(i int, v scan.Value, r *T, z *record.Zone) error {
	f := &p.m.fields[i]
	name := f.label()
	switch d := p.targets[i].dst(r).(type) {
	case *string:
		switch f.kind {
		case kindLabel:
			return p.labels.Label(name, v, d)
		case kindURL:
			return p.labels.URLLabel(name, v, d)
		}
		return scan.Text(name, v, d)
	case *int64:
		return f.time(name, v, z, d)
	case **int64:
		return lgDurationField(name, v, f.scale, d)
	case **int32:
		return scan.Count32(name, v, d)
	case *int32:
		return scan.HTTPStatus(name, v, d)
	case **bool:
		return scan.Boolean(name, v, func(b bool) { *d = record.BoolPtr(b) })
	}
	return nil
}

// time reads a time field. z is the file's zone of times without one: a
// zone the user gave applies to every time of the file; UTC, the default
// (z.Default), only to those of a layout without a zone, where it always
// has.
func (f *mappedField) time(name string, v scan.Value, z *record.Zone, dst *int64) error {
	given := z
	if z != nil && z.Default {
		given = nil
	}
	switch {
	case f.scale != 0:
		return lgEpochField(name, v, f.scale, dst)
	case f.unit == "":
		return scan.TimestampIn(name, v, given, dst)
	}
	b, ok, err := scan.TextBytes(name, v)
	if !ok || err != nil {
		return err
	}
	if v.Kind != scan.String {
		return record.FieldErrorf(name, record.ErrBadTime, "want a string in %s, got %s", f.unit, scan.KindName(v.Kind))
	}
	var ns int64
	if f.layout == "" {
		var perr error
		if ns, perr = scan.ParseRFC3339In(b, given); perr != nil {
			return record.FieldErrorf(name, record.ErrBadTime, "%q: %v", b, perr)
		}
	} else {
		loc := time.UTC
		if z != nil && z.Loc != nil {
			loc = z.Loc
		}
		t, perr := time.ParseInLocation(f.layout, string(b), loc)
		if perr != nil {
			return record.FieldErrorf(name, record.ErrBadTime, "%q: not in the layout %q", b, f.layout)
		}
		if t.Unix() < scan.MinEpochSec || t.Unix() > scan.MaxEpochSec {
			return record.FieldErrorf(name, record.ErrBadTime, "%q: %v", b, scan.ErrTimeRange)
		}
		ns = t.UnixNano()
	}
	*dst = ns
	return nil
}
