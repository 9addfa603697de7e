package simulate

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestConfigErrors: a Config Run cannot use is a *ConfigError naming the
// field and saying, in a sentence, what is wrong: no package prefix (the
// caller adds its own), no Go slice syntax.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	const formats = "server: native, vllm-otlp, tgi, triton, sglang-metrics, trtllm; gateway: native, envoy, envoy-json, nginx, nginx-combined, otel-gateway; client: native, aiperf, jsonl"
	for _, tc := range []struct {
		set   func(*Config)
		field string
		want  string
	}{
		{func(c *Config) { c.Out = "" }, "Out", "Config.Out is required: the directory to write the logs into"},
		{func(c *Config) { c.Requests = 0 }, "Requests", "Config.Requests must be at least 1, not 0"},
		{func(c *Config) { c.Formats = []string{"bogus"} }, "Formats", `Config.Formats names "bogus", which is no format simulate writes (` + formats + ")"},
		{func(c *Config) { c.Formats = []string{"=nginx"} }, "Formats", `Config.Formats has "=nginx", which names no host before its '='`},
		{func(c *Config) { c.Formats = []string{"gateway=tgi"} }, "Formats", `Config.Formats sets the gateway tier to "tgi", which no gateway writes (gateway formats: native, envoy, envoy-json, nginx, nginx-combined, otel-gateway)`},
		{func(c *Config) { c.Formats = []string{"gw-1=bogus"} }, "Formats", `Config.Formats pins gw-1 to "bogus", which is no format simulate writes (` + formats + ")"},
		{func(c *Config) { c.Formats = []string{"gw-1=tgi"} }, "Formats", `Config.Formats pins gw-1 to "tgi", which a gateway cannot write (gateway formats: native, envoy, envoy-json, nginx, nginx-combined, otel-gateway)`},
		{func(c *Config) { c.Formats = []string{"gw-9=nginx"} }, "Formats", "Config.Formats pins gw-9, which is no host (replicas: llama-3.1-8b-0, llama-3.1-8b-1, llama-3.1-8b-2, llama-3.1-70b-0, llama-3.1-70b-1; gateways: gw-1, gw-2; clients: client-us-east-1, client-us-east-2, client-eu-west-1, client-eu-west-2, client-ap-south-1, client-ap-south-2)"},
		{func(c *Config) { c.ColdKinds = []string{"warm"} }, "ColdKinds", `Config.ColdKinds names "warm", which is no warm-up kind (want any of decode, prefill, load, queue)`},
		{func(c *Config) { c.ColdDelay = -time.Second }, "ColdDelay", "Config.ColdDelay must be 0 or more, not -1s"},
		{func(c *Config) { c.RegionDelay = map[string]time.Duration{"mars": time.Second} }, "RegionDelay", `Config.RegionDelay names "mars", which is no region (want any of us-east, eu-west, ap-south)`},
		{func(c *Config) { c.SlowAuthExtra = -time.Millisecond }, "SlowAuthExtra", "Config.SlowAuthExtra must be 0 or more, not -1ms"},
		{func(c *Config) { c.MaxDriftPPM = 101 }, "MaxDriftPPM", "Config.MaxDriftPPM must be between 0 and 100, not 101"},
		{func(c *Config) { c.LossRate, c.CancelRate = 2, 3 }, "LossRate", "Config.LossRate must be between 0 and 1, not 2"},
		{func(c *Config) { c.ErrorMix = map[int]float64{502: 0.1} }, "ErrorMix", "Config.ErrorMix names status 502, which is no way of failing (want any of [500 503 429 408 499])"},
		{func(c *Config) { c.ErrorMix = map[int]float64{500: -0.1} }, "ErrorMix", "Config.ErrorMix share of 500 must be between 0 and 1, not -0.1"},
		{func(c *Config) { c.ErrorMix = map[int]float64{500: 0.5, 429: 0.75} }, "ErrorMix", "Config.ErrorMix shares must add up to at most 1 (each request fails one way or none), not 1.25"},
		{func(c *Config) { c.LossRate, c.TruncateRate, c.DuplicateRate = 0.5, 0.5, 0.25 }, "LossRate", "Config.LossRate plus TruncateRate and DuplicateRate must be at most 1 (each record has one fate), not 1.25"},
	} {
		c := testConfig(t, 10)
		tc.set(&c)
		_, err := Run(context.Background(), c, nil)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != tc.field || err.Error() != tc.want {
			t.Errorf("Run: %v\nwant a ConfigError for %s: %s", err, tc.field, tc.want)
		}
	}
}
