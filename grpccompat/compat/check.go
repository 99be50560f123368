package compat

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Options tune Check. The zero value runs the full plan with every normalization.
type Options struct {
	// Plan to run; nil derives the exhaustive plan from both sides (see buildPlan).
	Plan Plan
	// Sample > 0 runs only that many calls of the plan, picked with Seed (see Plan.Sample).
	Sample int
	Seed   uint64
	// Normalize names the normalizations to enable (see Normalizations and ParseNormalizations);
	// nil enables all of them. Strict disables all of them.
	Normalize []string
	Strict    bool
	// Timeout bounds every call (default 1 minute).
	Timeout time.Duration
	// Concurrency is the number of calls in flight (default 4 x GOMAXPROCS: each call waits on
	// one side at a time).
	Concurrency int
	// MaxDetails bounds the differences and errors reported in full (default 100).
	MaxDetails int
	// MaxFailures is how many calls of one method in a row a side may fail to answer (timeout,
	// unreachable) before the run stops (default 10).
	MaxFailures int
	// Progress, when set, is called now and then with the number of calls done and planned.
	Progress func(done, total int)

	// wholeStreams compares ListBundles as one list (tests: the keyed comparison must agree).
	wholeStreams bool
}

func (o *Options) defaults() {
	if o.Timeout <= 0 {
		o.Timeout = time.Minute
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4 * runtime.GOMAXPROCS(0)
	}
	if o.MaxDetails <= 0 {
		o.MaxDetails = 100
	}
	if o.MaxFailures <= 0 {
		o.MaxFailures = 10
	}
}

// Check compares what left and right answer to every call of the plan. It returns the report and,
// when the comparison could not be completed (a side stopped answering, ctx ended, a side could
// not be surveyed), an error too: the report then holds what was compared so far. Differences
// are not errors: see Report.Equal.
func Check(ctx context.Context, left, right Target, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	enabled, err := enabledNormalizations(o)
	if err != nil {
		return nil, err
	}
	lk, rk := detectKind(ctx, left, o.Timeout), detectKind(ctx, right, o.Timeout)
	r := &Report{
		Left:      SideInfo{Target: left.String(), Kind: lk.String()},
		Right:     SideInfo{Target: right.String(), Kind: rk.String()},
		CrossKind: lk != rk && lk != KindUnknown && rk != KindUnknown,
	}
	for _, n := range enabled {
		if !n.CrossKind || r.CrossKind {
			r.Normalizations = append(r.Normalizations, AppliedNormalization{Normalization: *n})
		}
	}
	defer func() { r.Duration = time.Since(start) }()
	lf, rf, err := surveyBoth(ctx, left, right, o.Timeout)
	if err != nil {
		r.Incomplete = err.Error()
		return r, err
	}
	lf.kind, rf.kind = lk, rk
	plan := o.Plan
	if plan == nil {
		plan = buildPlan(lf, rf)
	}
	r.Plan = plan.Sample(o.Sample, o.Seed)
	run := &runner{opts: o, left: left, right: right, lf: lf, rf: rf, report: r,
		cmp: &comparer{enabled: enabled, crossKind: r.CrossKind, maxDiff: 8000}}
	err = run.run(ctx)
	slices.SortFunc(r.Methods, func(a, b MethodStats) int {
		return slices.Index(methodOrder, a.Method) - slices.Index(methodOrder, b.Method)
	})
	return r, err
}

func enabledNormalizations(o Options) ([]*Normalization, error) {
	var out []*Normalization
	if o.Strict {
		return nil, nil
	}
	if o.Normalize == nil {
		for i := range normalizations {
			out = append(out, &normalizations[i])
		}
		return out, nil
	}
	for _, name := range o.Normalize {
		n := findNormalization(name)
		if n == nil {
			return nil, fmt.Errorf("unknown normalization %q", name)
		}
		out = append(out, n)
	}
	// Apply in the registry's order, whatever the order asked.
	slices.SortFunc(out, func(a, b *Normalization) int {
		return slices.Index(normalizationNames(), a.Name) - slices.Index(normalizationNames(), b.Name)
	})
	return out, nil
}

// detectKind asks the target, then its answer to a GetPackage miss.
func detectKind(ctx context.Context, t Target, timeout time.Duration) Kind {
	if k := t.Kind(); k != KindUnknown {
		return k
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, err := t.Invoke(cctx, probeCall())
	if err != nil {
		return KindUnknown
	}
	return kindFromProbe(a)
}

func surveyBoth(ctx context.Context, left, right Target, timeout time.Duration) (*facts, *facts, error) {
	var (
		wg       sync.WaitGroup
		lf, rf   *facts
		le, rerr error
	)
	wg.Add(2)
	go func() { defer wg.Done(); lf, le = survey(ctx, left, timeout) }()
	go func() { defer wg.Done(); rf, rerr = survey(ctx, right, timeout) }()
	wg.Wait()
	if err := errors.Join(le, rerr); err != nil {
		return nil, nil, fmt.Errorf("survey the catalogs: %w", err)
	}
	return lf, rf, nil
}
