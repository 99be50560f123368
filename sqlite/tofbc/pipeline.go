package tofbc

import (
	"context"
	"sync"
)

// inOrder runs work(0..n-1) on a few workers and calls deliver(i, result) for i = 0, 1, ... in
// order, from the calling goroutine. At most 2*workers results are in flight, so memory does not
// grow with n. The first error (from work or deliver) stops everything and is returned.
func inOrder[R interface{ failed() error }](ctx context.Context, n, workers int, work func(context.Context, int) R, deliver func(int, R) error) error {
	ctx, cancel := context.WithCancel(ctx)
	slots := make([]chan R, n)
	for i := range slots {
		slots[i] = make(chan R, 1)
	}
	window := make(chan struct{}, 2*workers)
	jobs := make(chan int)
	var wg sync.WaitGroup
	go func() {
		defer close(jobs)
		for i := 0; i < n; i++ {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				slots[i] <- work(ctx, i)
			}
		}()
	}
	defer func() {
		cancel() // unblocks the feeder, which closes jobs, which ends the workers
		wg.Wait()
	}()
	for i := 0; i < n; i++ {
		var res R
		select {
		case res = <-slots[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-window
		if err := res.failed(); err != nil {
			return err
		}
		if err := deliver(i, res); err != nil {
			return err
		}
	}
	return nil
}

func (r packageResult) failed() error { return r.err }
