package record

import "fmt"

// A row lacks its times when it holds none of the times or durations its
// tier is analysed on: a file read with the wrong format typically gives
// such rows only (the format's parser kept a request ID and a status it
// recognised, and found none of its time fields), and ingest refuses it
// (see ingest/timecheck.go).

// HasTime reports whether row carries a time its tier needs: a gateway row
// a start or an end (NGINX's combined format logs only the end); a client
// row a start, an end or an end-to-end duration (load generators that time
// on a monotonic clock log durations only); a server row any of its
// instants or durations (so do servers: Triton, TensorRT-LLM, Ollama's
// access lines).
func HasTime[T Row](row *T) bool {
	switch r := any(row).(type) {
	case *ClientRow:
		return r.Start != 0 || r.End != 0 || r.E2ENS != nil
	case *GatewayRow:
		return r.Start != 0 || r.End != 0
	case *ServerRow:
		return r.Arrival != 0 || r.Scheduled != 0 || r.FirstToken != 0 || r.End != 0 ||
			r.E2ENS != nil || r.QueueNS != nil || r.TTFTNS != nil || r.PrefillNS != nil ||
			r.DecodeNS != nil || r.InferenceNS != nil || r.LoadNS != nil
	}
	return false
}

// MissingTimes says what a row of tier t that HasTime refuses lacks, for
// messages: "no start or end time".
func MissingTimes(t Tier) string {
	switch t {
	case Gateway:
		return "no start or end time"
	case Client:
		return "no start or end time and no end-to-end duration"
	}
	return "no time and no duration"
}

// SuggestTimed names a format of tier t other than not that reads the
// lines (and doc, as Sniff takes them) of a file whose rows lacked their
// times through not: the format sniffing picks ("sniffing suggests
// native"), else the line format whose parser makes the most rows with
// times of the lines ("native reads 5 of the first 8 lines with times");
// "" when none does.
func SuggestTimed(t Tier, lines [][]byte, doc []byte, not *Format) string {
	if f, err := Sniff(t, "", lines, doc); err == nil && f != not && !f.Untimed {
		return "sniffing suggests " + f.Name
	}
	best, bestN := "", 0
	for _, f := range registry[t] {
		if f == not || f.Untimed {
			continue
		}
		var n int
		switch t {
		case Client:
			n = timedLines[ClientRow](f.NewParser, lines)
		case Gateway:
			n = timedLines[GatewayRow](f.NewParser, lines)
		case Server:
			n = timedLines[ServerRow](f.NewParser, lines)
		}
		if n > bestN {
			best, bestN = f.Name, n
		}
	}
	if bestN == 0 {
		return ""
	}
	return fmt.Sprintf("%s reads %d of the first %d lines with times", best, bestN, len(lines))
}

// timedLines counts the lines that the line parser newParser makes a row
// with times of; 0 for a document format.
func timedLines[T Row](newParser any, lines [][]byte) int {
	return parsedLines(newParser, lines, HasTime[T])
}
