package analyze

// Words is what the report says of a Result (report.Sentences), for the
// tests of this package that check a summary's figures and, beside them,
// the sentences a report makes of them. Package report cannot be imported
// here (it imports analyze); say_test.go, of the external test package
// analyze_test, which may import it, sets Say before any test runs.
type Words struct {
	Findings, DataQuality []string
	Slices                [][]string // by index of Result.Slices
	Headlines             []HeadlineText
}

// HeadlineText is one headline: its question and its sentence.
type HeadlineText struct{ Topic, Text string }

// Say is report.Say, set by say_test.go.
var Say func(*Result) Words

// said is Say(r), failing loudly if say_test.go did not set it.
func said(r *Result) Words {
	if Say == nil {
		panic("analyze tests: Say is not set (say_test.go)")
	}
	return Say(r)
}

// saidOf is what the report says of the slice labelled label alone.
func saidOf(r *Result, label string) []string {
	for i, s := range r.Slices {
		if s.Label == label {
			return said(r).Slices[i]
		}
	}
	return nil
}

// ChangeText is report's sentence for a trend change, set by say_test.go.
var ChangeText func(TrendChange) string
