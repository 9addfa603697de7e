package analyze_test

import (
	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/report"
)

// The report's wording, for the sentence checks of analyze's own tests
// (export_test.go).
func init() {
	analyze.ChangeText = report.TrendChangeText
	analyze.Say = func(r *analyze.Result) analyze.Words {
		s := report.Say(r, nil)
		w := analyze.Words{Findings: s.Findings, DataQuality: s.DataQuality, Slices: s.Slices}
		for _, h := range s.Headlines {
			w.Headlines = append(w.Headlines, analyze.HeadlineText{Topic: h.Topic, Text: h.Text})
		}
		return w
	}
}
