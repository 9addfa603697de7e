package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/infertrace/infertrace/simulate"
)

func cmdSimulate(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "simulate")
	cfg := simulate.DefaultConfig()
	fs.StringVar(&cfg.Out, "out", "", "output directory (required)")
	fs.IntVar(&cfg.Requests, "requests", cfg.Requests, "number of client requests")
	fs.Int64Var(&cfg.Seed, "seed", cfg.Seed, "random seed; the same seed writes the same files")
	fs.StringSliceVar(&cfg.Formats, "formats", cfg.Formats, "log formats per host: bare names cycle within their tier (server formats through the replicas), TIER=FORMAT sets a tier, HOST=FORMAT pins one host (server: "+strings.Join(simulate.SupportedFormats, ", ")+"; gateway: "+strings.Join(simulate.GatewayFormats, ", ")+"; client: "+strings.Join(simulate.ClientFormats, ", ")+")")
	fs.StringSliceVar(&cfg.ColdKinds, "cold", cfg.ColdKinds, "how the late replica warms up, any of "+strings.Join(simulate.ColdKinds, ", ")+" (none: no late replica)")
	fs.DurationVar(&cfg.ColdDelay, "cold-delay", cfg.ColdDelay, "the first prefill's extra time (prefill), the model load (load), the time before serving (queue)")
	fs.DurationVar(&cfg.ColdJoinAt, "cold-join", cfg.ColdJoinAt, "when the late replica joins, after the start (e.g. 40s: a scale-up during the burst)")
	fs.IntVar(&cfg.ColdRequests, "cold-requests", cfg.ColdRequests, "how many of the late replica's first requests run slower (decode)")
	fs.Float64Var(&cfg.ColdFactor, "cold-factor", cfg.ColdFactor, "how many times slower they run, prefill and decode (decode)")
	fs.StringVar(&cfg.Routing, "routing", simulate.RouteLeastLoaded, "how requests are sent among a model's replicas: "+strings.Join(simulate.RoutingPolicies, ", "))
	fs.Float64Var(&cfg.PrefillBatchSlope, "prefill-batch-slope", 0, "prefill slows by this share per further request running on its replica, as decode does (0: prefill does not depend on the batch)")
	start := fs.String("start", cfg.Epoch.Format(time.RFC3339), "the true time the simulated traffic starts at (RFC 3339), e.g. to append one batch after another to a store")
	fs.BoolVar(&cfg.Evals, "evals", false, "also write DIR/evals.csv, an evaluation of the answers whose pass rate drops for long prompts on "+simulate.EvalsWeakModel+" (for report --evals)")
	// Incidents to inject, for infertrace compare.
	fs.Float64Var(&cfg.BurstMultiplier, "burst-multiplier", cfg.BurstMultiplier, "arrival rate during the burst over the steady rate; 1: no burst")
	fs.StringSliceVar(&cfg.Tiers, "tiers", nil, "keep only these tiers' logs (client, gateway, server), as a deployment that lacks one (default: all three)")
	fs.Float64Var(&cfg.RatePerSecond, "rate", cfg.RatePerSecond, "steady arrival rate, requests per second (the peak of the day with --diurnal)")
	fs.Float64Var(&cfg.Diurnal, "diurnal", cfg.Diurnal, "0 to <1: the rate follows the time of day (UTC), peaking at 15:00 and falling by this share at 03:00")
	fs.Float64Var(&cfg.Weekend, "weekend", cfg.Weekend, "factor on the rate on Saturdays and Sundays (UTC), e.g. 0.3 for quiet weekends")
	fs.DurationVar(&cfg.BurstStart, "burst-start", cfg.BurstStart, "when the burst starts, after the start")
	fs.DurationVar(&cfg.BurstDuration, "burst-duration", cfg.BurstDuration, "how long the burst lasts")
	regionDelay := fs.StringArray("region-delay", nil, "REGION=DURATION: extra one-way network delay on both legs of one region's clients, e.g. eu-west=150ms (repeatable; regions: "+strings.Join(simulate.RegionNames(), ", ")+")")
	fs.Float64Var(&cfg.SlowAuthRate, "slow-auth-rate", cfg.SlowAuthRate, "share of requests on the gateway's slow auth path (20-80 ms, plus --slow-auth-delay)")
	fs.DurationVar(&cfg.SlowAuthExtra, "slow-auth-delay", 0, "extra gateway time of every request on the slow auth path")
	errorMix := fs.String("errors", "", "STATUS:SHARE,...: the error mix, e.g. 500:0.01,503:0.01,429:0.005,408:0.01, in place of the default 5xx, timeouts, cancels and rate limit (500 fails in generation, 503 an overloaded server answering at once, 429 the gateway rejecting, 408 a client's short deadline, 499 a user's cancel; unnamed statuses 0)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *errorMix != "" {
		mix, err := parseErrorMix(*errorMix)
		if err != nil {
			return usageErr("--errors %q: %v", *errorMix, err)
		}
		cfg.ErrorMix = mix
	}
	for _, rd := range *regionDelay {
		name, dur, ok := strings.Cut(rd, "=")
		d, err := time.ParseDuration(dur)
		if !ok || err != nil {
			return usageErr("--region-delay %q: want REGION=DURATION, e.g. eu-west=150ms", rd)
		}
		if cfg.RegionDelay == nil {
			cfg.RegionDelay = map[string]time.Duration{}
		}
		cfg.RegionDelay[name] = d
	}
	epoch, err := time.Parse(time.RFC3339Nano, *start)
	if err != nil {
		return usageErr("--start %q: want an RFC 3339 time, e.g. 2026-11-30T10:00:00Z", *start)
	}
	cfg.Epoch = epoch
	if len(cfg.ColdKinds) == 1 && cfg.ColdKinds[0] == "none" {
		cfg.ColdKinds = nil
	}
	if cfg.Out == "" {
		return usageErr("--out DIR is required")
	}
	if err := noArgs(fs, "simulate takes only flags; the directory is --out DIR"); err != nil {
		return err
	}
	_, err = simulate.Run(ctx, cfg, e.stdout)
	var ce *simulate.ConfigError
	if errors.As(err, &ce) && simulateFlags[ce.Field] != "" {
		return usageErr("--%s %s", simulateFlags[ce.Field], ce.Problem)
	}
	return err
}

// parseErrorMix reads simulate's --errors: STATUS:SHARE pairs, comma
// separated, each status once.
func parseErrorMix(s string) (map[int]float64, error) {
	mix := map[int]float64{}
	for _, part := range strings.Split(s, ",") {
		st, sh, ok := strings.Cut(strings.TrimSpace(part), ":")
		status, err1 := strconv.Atoi(st)
		share, err2 := strconv.ParseFloat(sh, 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%q: want STATUS:SHARE, e.g. 503:0.01", part)
		}
		if _, dup := mix[status]; dup {
			return nil, fmt.Errorf("status %d given twice", status)
		}
		mix[status] = share
	}
	return mix, nil
}

// simulateFlags are the flags of simulate that set a Config field, by field.
var simulateFlags = map[string]string{
	"Out": "out", "Requests": "requests", "Formats": "formats", "ColdKinds": "cold", "ColdDelay": "cold-delay",
	"BurstMultiplier": "burst-multiplier", "BurstStart": "burst-start", "RatePerSecond": "rate", "Tiers": "tiers", "Diurnal": "diurnal", "Weekend": "weekend", "BurstDuration": "burst-duration", "ColdJoinAt": "cold-join", "ColdRequests": "cold-requests", "ColdFactor": "cold-factor", "RegionDelay": "region-delay", "SlowAuthRate": "slow-auth-rate", "SlowAuthExtra": "slow-auth-delay",
	"ErrorMix": "errors", "Routing": "routing", "PrefillBatchSlope": "prefill-batch-slope",
}
