package formats

import (
	"fmt"
	"io"

	"github.com/infertrace/infertrace/ingest/record"
	"github.com/infertrace/infertrace/ingest/scan"
)

// GuideLLM (vllm-project/guidellm) writes its benchmark report with
// --output-path FILE.json (src/guidellm/benchmark/schemas/report.py):
//
//	{"metadata":{"version":2,"guidellm_version":…},"config"|"args":{…},
//	 "benchmarks":[{…,"requests":{"successful":[…],"errored":[…],"incomplete":[…],"total":null}}]}
//
// One unit per request record, in two shapes:
//   - schema 2 (GenerativeRequestStats, src/guidellm/schemas/request_stats.py):
//     request_id, response_id, info{status,error,timings{request_start,
//     first_token_iteration,token_iterations,request_end,…}}, the computed
//     request_start_time / request_end_time, prompt_tokens, output_tokens.
//   - earlier releases (GenerativeTextResponseStats / GenerativeTextErrorStats):
//     request_id, prompt_tokens, output_tokens, start_time, first_token_time,
//     last_token_time, end_time, and error for errored requests.
//
// Every time is float Unix seconds from time.time() on the load
// generator's host: Start = timings.request_start (else request_start_time,
// else start_time), FirstToken = timings.first_token_iteration (else
// first_token_time), End = timings.request_end (else request_end_time, else
// end_time). RequestID is GuideLLM's own request_id, which it does NOT send
// to the server: it keeps the rows apart but joins nothing; ResponseID
// (schema 2) is the server's response id, which does. Streamed is true when
// more than one token iteration (or a first token before the last) was
// seen. Error: the errored group's error text as a short label (its last
// line), "incomplete" for the incomplete group (cancelled at the end of a
// benchmark); a request of that group that never started gives no row. The
// prompt and output text members are never read.

const formatGuideLLM = "guidellm"

func init() {
	record.RegisterDoc(record.Client, formatGuideLLM, sniffGuideLLM, parseGuideLLM)
}

// sniffGuideLLM accepts a report written on one line: a top-level
// "benchmarks" member, or a "metadata" object naming guidellm_version.
func sniffGuideLLM(line []byte) bool {
	if lgNativeLike(line) {
		return false
	}
	found := false
	lgSniffMembers(line, func(key []byte, v scan.Value, complete bool) bool {
		switch string(key) {
		case "benchmarks":
			found = true
		case "metadata":
			if complete && v.Kind == scan.ObjectKind {
				lgSniffMembers(v.Raw, func(k []byte, _ scan.Value, _ bool) bool {
					found = found || string(k) == "guidellm_version"
					return !found
				})
			}
		}
		return !found
	})
	return found
}

func parseGuideLLM(r io.Reader, file string, out *record.DocOut[record.ClientRow]) error {
	d := newLgDocReader(r)
	var p guidellmParser
	found := false
	err := d.documents(func() error {
		return d.members(func(key string) error {
			if key != "benchmarks" {
				return d.skip()
			}
			found = true
			return d.elements(func(b int) error {
				return d.members(func(key string) error {
					if key != "requests" {
						return d.skip()
					}
					return d.members(func(group string) error {
						if c, err := d.peekIn(); err != nil || c != '[' {
							if err != nil {
								return err
							}
							return d.skip() // "total": null
						}
						return d.elements(func(i int) error {
							pos := fmt.Appendf(nil, `{"benchmark":%d,"group":%q,"request":%d}`, b, group, i)
							return d.unit(out, pos, func(raw []byte, out *record.DocOut[record.ClientRow]) error {
								return p.request(raw, group, out)
							})
						})
					})
				})
			})
		})
	})
	if err == nil && !found && d.docs > 0 {
		err = fmt.Errorf("%w: no \"benchmarks\" member: not a GuideLLM report", record.ErrSyntax)
	}
	return lgDocEnd(err)
}

type guidellmParser struct{ labels scan.Labels }

func (p *guidellmParser) request(raw []byte, group string, out *record.DocOut[record.ClientRow]) error {
	var r record.ClientRow
	var start, end, first, oldStart, oldEnd, oldFirst, oldLast int64
	var iterations int64
	var errText []byte
	err := scan.Object(raw, func(k []byte, esc bool, v scan.Value) error {
		switch key := string(scan.MemberKey(k, esc)); key {
		case "request_id":
			return scan.Text(key, v, &r.RequestID)
		case "response_id":
			return scan.Text(key, v, &r.ResponseID)
		case "prompt_tokens":
			return scan.Count32(key, v, &r.PromptTokens)
		case "output_tokens":
			return scan.Count32(key, v, &r.OutputTokens)
		case "request_start_time", "start_time":
			return scan.Timestamp(key, v, &oldStart)
		case "request_end_time", "end_time":
			return scan.Timestamp(key, v, &oldEnd)
		case "first_token_time":
			return scan.Timestamp(key, v, &oldFirst)
		case "last_token_time":
			return scan.Timestamp(key, v, &oldLast)
		case "error":
			b, _, err := scan.TextBytes(key, v)
			if len(b) > 0 {
				errText = b
			}
			return err
		case "info":
			return lgMembers("info", v, func(key []byte, v scan.Value) error {
				switch string(key) {
				case "error":
					b, _, err := scan.TextBytes("info.error", v)
					if len(b) > 0 {
						errText = b
					}
					return err
				case "timings":
					return lgMembers("info.timings", v, func(key []byte, v scan.Value) error {
						switch name := "info.timings." + string(key); string(key) {
						case "request_start":
							return scan.Timestamp(name, v, &start)
						case "first_token_iteration":
							return scan.Timestamp(name, v, &first)
						case "request_end":
							return scan.Timestamp(name, v, &end)
						case "token_iterations":
							n, ok, err := scan.Integer(name, v, 0, 1<<62)
							if ok {
								iterations = n
							}
							return err
						}
						return nil
					})
				}
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.Start, r.End, r.FirstToken = lgFirstSet(start, oldStart), lgFirstSet(end, oldEnd), lgFirstSet(first, oldFirst)
	switch group {
	case "errored":
		r.Error = "errored"
		if errText != nil {
			r.Error = p.labels.Intern(lgErrorLabel(errText))
		}
	case "incomplete":
		r.Error = "incomplete"
		if r.Start == 0 {
			return nil // never sent: nothing the server could have seen
		}
	}
	if r.Start == 0 {
		return record.Missing("request_start")
	}
	if iterations > 1 || (oldFirst != 0 && oldLast > oldFirst) {
		r.Streamed = record.BoolPtr(true)
	}
	r.Format = formatGuideLLM
	*out.Next() = r
	return nil
}

func lgFirstSet(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}
