package duck

import "context"

type stepKey struct{}

// WithStep returns a context under which Run and Summarize tell step the
// name of each step as they begin it ("joining tiers into requests.parquet",
// "slices", …), for a display of their progress. step is called from the
// goroutine that called Run or Summarize.
func WithStep(ctx context.Context, step func(name string)) context.Context {
	return context.WithValue(ctx, stepKey{}, step)
}

// Step tells the step function of ctx, if any, that step name begins.
func Step(ctx context.Context, name string) {
	if f, ok := ctx.Value(stepKey{}).(func(string)); ok && f != nil {
		f(name)
	}
}
