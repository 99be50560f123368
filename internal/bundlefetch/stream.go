package bundlefetch

import (
	"context"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

var _ template.BundleStreamer = (*Fetcher)(nil)

// RenderEach renders one bundle per ref and gives each to fn in the order of refs, as soon as it
// and those before it are rendered, with at most Parallel renders in flight and Parallel more
// rendered bundles waiting for fn: the memory it takes depends on Parallel, not on len(refs). The
// bundles are not kept (a ref RenderBundles rendered before is taken from there); a later call
// that names the same ref renders it again. The first error, in the order of refs, stops it (a
// *template.ImageError for an image that could not be pulled or read), as does an error of fn.
//
// With BundlesFrom it renders through RenderBundles, which reads that catalog once for all refs.
func (f *Fetcher) RenderEach(ctx context.Context, refs []string, fn func(i int, b fbc.Bundle) error) error {
	if len(f.opts.BundlesFrom) > 0 {
		bundles, err := f.RenderBundles(ctx, refs)
		if err != nil {
			return err
		}
		for i, b := range bundles {
			if err := fn(i, b); err != nil {
				return err
			}
		}
		return nil
	}
	before := f.Stats()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait() // no render outlives the call
	}()

	type slot struct {
		done   chan struct{}
		bundle fbc.Bundle
		origin origin
		err    error
		known  *result // rendered by an earlier call
	}
	slots := make([]*slot, len(refs))
	f.mu.Lock()
	for i, ref := range refs {
		slots[i] = &slot{done: make(chan struct{}), known: f.rendered[ref]}
	}
	f.mu.Unlock()

	window := make(chan struct{}, 2*f.opts.Parallel) // rendered or rendering, not yet given to fn
	jobs := make(chan int)
	for range min(f.opts.Parallel, len(refs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s := slots[i]
				s.bundle, s.origin, s.err = f.renderOne(ctx, refs[i])
				close(s.done)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		for i, s := range slots {
			if s.known != nil {
				continue
			}
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

	// After the first image that cannot be read, the others are still waited for (not given to
	// fn), so that every image the template names and no registry gives is named at once.
	claimed := 0
	var unread unreadImages
	for i, s := range slots {
		var b fbc.Bundle
		if r := s.known; r != nil {
			select {
			case <-r.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			if r.err != nil {
				unread.add(f, refs[i], r.err)
				continue
			}
			b = r.bundle
		} else {
			select {
			case <-s.done:
			case <-ctx.Done():
				return ctx.Err()
			}
			<-window
			if s.err != nil {
				unread.add(f, refs[i], s.err)
				continue
			}
			claimed++
			f.count(s.origin)
			b = s.bundle
		}
		s.bundle = fbc.Bundle{} // given away: the slot no longer holds it
		if unread.failed() {
			continue
		}
		if err := fn(i, b); err != nil {
			return err
		}
	}
	if err := unread.err(); err != nil {
		return err
	}
	f.report(before, claimed, len(refs), nil)
	return nil
}

// count counts a bundle rendered from o.
func (f *Fetcher) count(o origin) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch o {
	case pulled:
		f.stats.Pulled++
	case cached:
		f.stats.Cached++
	case taken:
		f.stats.Taken++
	}
}
