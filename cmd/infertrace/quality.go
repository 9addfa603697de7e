package main

import (
	"fmt"
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
}

func (f *qualityFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.contract, "contract", "", "judge each use case against the contract in `FILE` (TOML or YAML): its constraints in order, goodput, why requests missed")
	fs.StringVar(&f.evals, "evals", "", "join per-request evals from `FILE` (CSV, JSON lines or Parquet: request_id, score and/or pass, optionally eval) by request ID")
	fs.StringVar(&f.prices, "prices", "", "per-model prices from `FILE` (CSV, JSON lines or Parquet: model with input_per_mtok and output_per_mtok, or gpu_hour and replicas)")
}

// check reads the contract, so that a bad one stops the run before
// anything is read or locked, and checks the other files exist.
func (f *qualityFlags) check() error {
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
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	f.loaded = c
	return nil
}
