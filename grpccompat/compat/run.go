package compat

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"
)

// runner sends every call of the plan to both sides on a pool of workers and folds the outcomes
// into the report as they come. Answers are dropped as soon as they are compared, so memory holds
// only the calls in flight and the reported differences.
type runner struct {
	opts        Options
	left, right Target
	lf, rf      *facts
	cmp         *comparer
	report      *Report

	mu       sync.Mutex
	details  []detail // differences and errors, by plan index
	applied  map[string]int
	done     int
	failures map[failureKey]int // unreachable answers in a row, per side and method (under mu)
	stopWhy  atomic.Pointer[string]
}

type failureKey struct {
	side   int
	method string
}

type detail struct {
	index int
	diff  *Difference
	err   *CallError
}

func (r *runner) run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	plan := r.report.Plan
	r.applied = map[string]int{}
	r.failures = map[failureKey]int{}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(r.opts.Concurrency, max(1, len(plan))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				r.do(ctx, cancel, i, &plan[i])
			}
		}()
	}
	progressDone := r.startProgress(len(plan))
feed:
	for i := range plan {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	progressDone()
	r.finish()
	if why := r.stopWhy.Load(); why != nil {
		r.report.Incomplete = *why
		return errors.New(*why)
	}
	if r.done < len(plan) {
		why := fmt.Sprintf("stopped after %d of %d calls: %v", r.done, len(plan), context.Cause(ctx))
		r.report.Incomplete = why
		return errors.New(why)
	}
	return nil
}

// do performs one call on both sides and records the outcome.
func (r *runner) do(ctx context.Context, stop context.CancelFunc, i int, c *Call) {
	sides := [2]*side{{kind: r.lf.kind, facts: r.lf}, {kind: r.rf.kind, facts: r.rf}}
	names := [2]string{"left", "right"}
	keyed := r.keyedComparison(c)
	var kept [2]*keyedStream
	defer func() { kept[0].close(); kept[1].close() }()
	var callErr *CallError
	for s, t := range []Target{r.left, r.right} {
		cctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
		var a *Answer
		var err error
		if keyed {
			kept[s], err = collectKeyed(cctx, t, c)
			if kept[s] != nil {
				a = kept[s].ans
			}
		} else {
			a, err = t.Invoke(cctx, c)
		}
		cancel()
		if ctx.Err() != nil {
			return // the run is stopping: this call is not counted
		}
		switch {
		case err != nil:
			callErr = &CallError{ID: c.ID, Method: c.Method, Request: c.Request, Side: names[s], Error: err.Error()}
		case a.Unreachable():
			callErr = &CallError{ID: c.ID, Method: c.Method, Request: c.Request, Side: names[s], Error: statusText(a)}
			if n := r.failed(s, c.Method, true); n >= r.opts.MaxFailures {
				why := fmt.Sprintf("the %s side (%s) failed %d %s calls in a row, last: %s: %s", names[s], t, n, shortMethod(c.Method), c.ID, statusText(a))
				r.stopWhy.CompareAndSwap(nil, &why)
				stop()
			}
		default:
			r.failed(s, c.Method, false)
		}
		if callErr != nil {
			break
		}
		sides[s].ans = a
	}
	if callErr != nil {
		r.record(i, c, VerdictError, nil, &detail{index: i, err: callErr})
		return
	}
	var out comparison
	if keyed {
		out = r.cmp.compareKeyed(c, sides[0], sides[1], kept[0], kept[1])
		if out.verdict == VerdictDifferent {
			sides[0].ans, sides[1].ans = kept[0].whole(), kept[1].whole()
		}
	} else {
		out = r.cmp.compare(c, sides[0], sides[1])
	}
	var d *detail
	if out.verdict == VerdictDifferent {
		d = &detail{index: i, diff: &Difference{ID: c.ID, Method: c.Method, Request: c.Request, Diff: out.diff, Applied: out.applied,
			Left: answerText(sides[0].ans), Right: answerText(sides[1].ans)}}
	}
	r.record(i, c, out.verdict, out.applied, d)
}

// failed counts the unreachable answers of a side's method in a row and returns the count.
func (r *runner) failed(side int, method string, failed bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := failureKey{side, method}
	if !failed {
		delete(r.failures, k)
		return 0
	}
	r.failures[k]++
	return r.failures[k]
}

// maxAnswerText bounds the answer text kept for a reported difference.
const maxAnswerText = 4000

// answerText renders an answer for a report, cut at maxAnswerText: a long stream is rendered only
// as far as it is shown.
func answerText(a *Answer) string {
	shown := a
	if a.stream {
		size := 0
		for i, m := range a.Messages {
			size += proto.Size(m)
			if size > maxAnswerText {
				cut := *a
				cut.Messages = a.Messages[:i+1]
				shown = &cut
				break
			}
		}
	}
	raw, err := shown.MarshalJSON()
	if err != nil {
		return "(cannot render: " + err.Error() + ")"
	}
	b := printable(string(raw))
	if shown != a { // the length of the whole text is not known
		body, _ := cutText(b, maxAnswerText)
		return body + fmt.Sprintf("\n... (%d messages in all)", len(a.Messages))
	}
	return truncateText(b, maxAnswerText)
}

func (r *runner) record(i int, c *Call, verdict string, applied []string, d *detail) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done++
	r.report.count(c.Method, verdict)
	for _, name := range applied {
		r.applied[name]++
	}
	if d == nil {
		return
	}
	// Keep the MaxDetails earliest (by plan order) differences and errors.
	r.details = append(r.details, *d)
	if len(r.details) > 2*r.opts.MaxDetails {
		r.trimDetails()
	}
}

func (r *runner) trimDetails() {
	slices.SortFunc(r.details, func(a, b detail) int { return a.index - b.index })
	if len(r.details) > r.opts.MaxDetails {
		for _, d := range r.details[r.opts.MaxDetails:] {
			if d.diff != nil {
				r.report.Omitted++
			}
		}
		r.details = r.details[:r.opts.MaxDetails]
	}
}

func (r *runner) finish() {
	r.trimDetails()
	rep := r.report
	rep.Differences, rep.Errors = []Difference{}, []CallError{}
	for _, d := range r.details {
		if d.diff != nil {
			rep.Differences = append(rep.Differences, *d.diff)
		} else {
			rep.Errors = append(rep.Errors, *d.err)
		}
	}
	for i := range rep.Normalizations {
		rep.Normalizations[i].Calls = r.applied[rep.Normalizations[i].Name]
	}
}

// startProgress reports progress every half second until the returned function is called.
func (r *runner) startProgress(total int) func() {
	if r.opts.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				r.mu.Lock()
				done := r.done
				r.mu.Unlock()
				r.opts.Progress(done, total)
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
		r.opts.Progress(r.done, total)
	}
}
