package simulate

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"
)

// FileStat describes one written log file.
type FileStat struct {
	Path    string // relative to Config.Out, e.g. "server/llama-3.1-8b-0.jsonl"
	Tier    string
	Host    string
	Lines   int // physical lines, including duplicated and truncated ones
	Records int // intact records, each counted once
}

// TierStat totals one tier's files.
type TierStat struct {
	Tier    string
	Lines   int
	Records int
}

// ImperfectionCount is how many times one kind was injected.
type ImperfectionCount struct {
	Kind  string // e.g. "lost:server", "error:timeout"; every kind is listed in Summary.Imperfections
	Count int
}

// Summary reports what Run wrote.
type Summary struct {
	Out      string
	Requests int
	Files    []FileStat
	// ClientMapping is the mapping file of the jsonl clients (relative to
	// Out), for ingest --map; empty when no client writes jsonl.
	ClientMapping     string
	Tiers             []TierStat // client, gateway, server
	TruthRows         int
	Imperfections     []ImperfectionCount // every kind, in a fixed order
	Clocks            []HostClock         // one per host, in Files order
	MaxInFlight       int                 // most requests in flight at once
	SimulatedDuration time.Duration       // true time from Config.Epoch to the last event
}

// Imperfection returns the count of one kind (0 if unknown).
func (s *Summary) Imperfection(kind string) int {
	for _, c := range s.Imperfections {
		if c.Kind == kind {
			return c.Count
		}
	}
	return 0
}

func (s *sim) summary() *Summary {
	sum := &Summary{
		Out:               s.cfg.Out,
		Requests:          s.made,
		TruthRows:         s.truth.rows,
		MaxInFlight:       s.maxInFl,
		SimulatedDuration: time.Duration(s.lastT),
		ClientMapping:     s.clientMapping,
	}
	tiers := map[string]*TierStat{}
	for _, t := range tierNames {
		sum.Tiers = append(sum.Tiers, TierStat{Tier: t})
	}
	for i := range sum.Tiers {
		tiers[sum.Tiers[i].Tier] = &sum.Tiers[i]
	}
	for _, hf := range s.files {
		sum.Files = append(sum.Files, FileStat{
			Path: filepath.ToSlash(hf.rel), Tier: hf.clock.Tier, Host: hf.clock.Host,
			Lines: hf.lines, Records: hf.records,
		})
		sum.Clocks = append(sum.Clocks, hf.clock)
		t := tiers[hf.clock.Tier]
		t.Lines += hf.lines
		t.Records += hf.records
	}
	for k, n := range s.counts {
		sum.Imperfections = append(sum.Imperfections, ImperfectionCount{Kind: impNames[k], Count: n})
	}
	return sum
}

// Print writes a human-readable account of the run.
func (s *Summary) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "simulated %d requests over %s into %s\n", s.Requests, s.SimulatedDuration.Round(time.Millisecond), s.Out)
	fmt.Fprintf(tw, "file\tlines\trecords\n")
	for _, f := range s.Files {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", f.Path, f.Lines, f.Records)
	}
	fmt.Fprintf(tw, "truth.parquet\t%d\t\n", s.TruthRows)
	fmt.Fprintf(tw, "truth.csv\t%d\t\n", s.TruthRows)
	fmt.Fprintf(tw, "clocks.csv\t%d\t\n", len(s.Clocks))
	if s.ClientMapping != "" {
		fmt.Fprintf(tw, "%s\t\t\tread client/*.app.jsonl with --client 'jsonl:GLOB' --map %s\n", s.ClientMapping, filepath.Join(s.Out, s.ClientMapping))
	}
	fmt.Fprintf(tw, "\ntier\tlines\trecords\n")
	for _, t := range s.Tiers {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", t.Tier, t.Lines, t.Records)
	}
	fmt.Fprintf(tw, "\nimperfection\tcount\t\n")
	for _, c := range s.Imperfections {
		fmt.Fprintf(tw, "%s\t%d\t\n", c.Kind, c.Count)
	}
	return tw.Flush()
}
