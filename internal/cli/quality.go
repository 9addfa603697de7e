package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/infertrace/infertrace/analyze"
	"github.com/infertrace/infertrace/compare"
	"github.com/infertrace/infertrace/contract"
)

// qualityFlags are report's (and run's) flags for the product contract:
// the contract file, and the evals and prices it is judged on.
type qualityFlags struct {
	contract, evals, prices string
	loaded                  *contract.Contract
	// tokenBuckets are the edges of prompt_bucket and output_bucket.
	tokenBuckets string
	edges        []int64
	// failOn is --fail-on: "contract" makes a failing contract (report,
	// run) or a rejected change (compare) the exit status.
	failOn string
}

func (f *qualityFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.contract, "contract", "", "judge each use case against the contract in `FILE` (TOML or YAML): its constraints in order, goodput, why requests missed")
	fs.StringVar(&f.evals, "evals", "", "join per-request evals from `FILE` (CSV, JSON lines or Parquet: request_id, score and/or pass, optionally eval) by request ID")
	fs.StringVar(&f.prices, "prices", "", "per-model prices from `FILE` (CSV, JSON lines or Parquet: model with input_per_mtok and output_per_mtok, or gpu_hour and replicas)")
	fs.StringVar(&f.failOn, "fail-on", "", "`WHAT` sets the exit status: contract, to exit 3 when a use case fails the --contract (compare: 4 when it rejects the change)")
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
	switch {
	case f.failOn != "" && f.failOn != "contract":
		return usageErr("--fail-on %q: want contract", f.failOn)
	case f.failOn != "" && f.contract == "":
		return usageErr("--fail-on contract needs a --contract FILE to judge")
	}
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

// Exit statuses beyond 0 (all good), 1 (input or run failed) and 2
// (usage): the contract's verdict, with --fail-on contract.
const (
	exitContractFails = 3 // report, run: a use case fails its contract
	exitChangeReject  = 4 // compare: the change is rejected
)

// verdictError is a run that completed, with every output written, whose
// contract verdict --fail-on turns into its exit status.
type verdictError struct {
	code int
	msg  string
}

func (e *verdictError) Error() string { return e.msg }

// contractFails is the exit status of a report judged against a
// contract with --fail-on contract: nil unless a use case (as a whole,
// not one of its slices) fails.
func (f *qualityFlags) contractFails(c *analyze.ContractResult) error {
	if f.failOn != "contract" || c == nil {
		return nil
	}
	var failed []string
	for _, k := range c.Cases {
		if k.Slice == "" && k.Verdict == "fail" {
			failed = append(failed, k.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &verdictError{exitContractFails, fmt.Sprintf("contract %s fails: %s (see the report's Contract section)", c.File, strings.Join(failed, ", "))}
}

// changeRejected is compare's exit status with --fail-on contract: nil
// unless its verdict rejects the change.
func (f *qualityFlags) changeRejected(v *compare.ContractVerdict) error {
	if f.failOn != "contract" || v == nil || v.Verdict != compare.VerdictReject {
		return nil
	}
	return &verdictError{exitChangeReject, "the change is rejected against the contract " + v.File}
}
