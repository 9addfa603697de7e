package cli

import (
	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
)

// periodFlags are report's (and run's) flags for the trend over periods:
// --period day|week, and --weekly for --period week.
type periodFlags struct {
	period string
	weekly bool
}

func (f *periodFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.period, "period", "", "also show each slice's trend per `UNIT` present in the data (day or week): the headline figures of each period with its n and window, largest changes between consecutive periods first")
	fs.BoolVar(&f.weekly, "weekly", false, "the same as --period week")
}

// unit is the period unit the flags ask for ("" for none), or a usage
// error.
func (f *periodFlags) unit() (string, error) {
	if f.weekly {
		if f.period != "" && f.period != analyze.PeriodWeek {
			return "", usageErr("--weekly and --period %s: give one", f.period)
		}
		return analyze.PeriodWeek, nil
	}
	if f.period != "" && !contains(analyze.PeriodUnits, f.period) {
		return "", usageErr("--period %q: want day or week%s", f.period, orWant(f.period, analyze.PeriodUnits))
	}
	return f.period, nil
}
