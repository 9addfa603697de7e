package main

import (
	"errors"
	"os"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/analyze/contract"
)

// qualityFlags are report's (and run's) flags for the product contract:
// the contract file, and the evals and prices it is judged on.
type qualityFlags struct {
	contract, evals, prices string
	loaded                  *contract.Contract
	// tokenBuckets are the edges of prompt_bucket and output_bucket.
	tokenBuckets string
	edges        []int64
}

func (f *qualityFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.contract, "contract", "", "judge each use case against the contract in `FILE` (TOML or YAML): its constraints in order, goodput, why requests missed")
	fs.StringVar(&f.evals, "evals", "", "join per-request evals from `FILE` (CSV, JSON lines or Parquet: request_id, score and/or pass, optionally eval) by request ID")
	fs.StringVar(&f.prices, "prices", "", "per-model prices from `FILE` (CSV, JSON lines or Parquet: model with input_per_mtok and output_per_mtok, or gpu_hour and replicas)")
	fs.StringVar(&f.tokenBuckets, "token-buckets", "512,2k,8k,32k", "`EDGES` of the prompt_bucket and output_bucket slice columns, in tokens (k = 1024)")
}

// check reads the contract, so that a bad one stops the run before
// anything is read or locked, and checks the other files exist.
func (f *qualityFlags) check() error {
	edges, err := analyze.ParseTokenEdges(f.tokenBuckets)
	if err != nil {
		return usageErr("--token-buckets: %v", err)
	}
	f.edges = edges
	for _, p := range [][2]string{{"evals", f.evals}, {"prices", f.prices}} {
		if p[1] == "" {
			continue
		}
		if _, err := os.Stat(p[1]); err != nil {
			return usageErr("--%s: %v", p[0], err)
		}
	}
	if f.contract == "" || f.loaded != nil {
		return nil
	}
	c, err := contract.Load(f.contract, analyze.SliceColumns)
	if err != nil {
		var ce *contract.Error
		if errors.As(err, &ce) {
			return err // exit 2, see runEnv
		}
		return usageErr("%v", err)
	}
	f.loaded = c
	return nil
}
