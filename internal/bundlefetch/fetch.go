// Package bundlefetch renders the bundle images a catalog template names, faster than opm: it
// pulls them in parallel, each distinct reference once per run, keeps pulled bundles in a
// content-addressed cache (--cache-dir, keyed by manifest digest: a tag is resolved again on every
// run with one manifest request, a digest never is), and takes bundles it already has from a
// catalog the user names (--bundles-from), pulling only what is missing. Bundles are pulled and
// rendered by package source (hostile layers refused as for every image) and come out as
// `opm render IMAGE` renders them.
package bundlefetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/plural"
	"github.com/olmcat/olmcat/internal/source"
)

// DefaultParallel is how many bundle images are pulled at once by default.
const DefaultParallel = 8

// Options configure a Fetcher.
type Options struct {
	// Images says how registries are reached (credentials, plain HTTP, TLS, platform).
	Images indeximage.Options
	// CacheDir keeps pulled bundles between runs, under CacheDir/bundles; "" keeps none.
	CacheDir string
	// BundlesFrom is a catalog reference whose bundles are taken, matched by their image, instead
	// of pulling them; "" takes none. It is opened with Source the first time a bundle is needed.
	BundlesFrom string
	Source      source.Options
	// Parallel bounds the pulls in flight; 0 means DefaultParallel.
	Parallel int
	// Log, if set, receives one line per RenderBundles call that rendered a bundle: how many
	// were pulled, read from the cache, taken from BundlesFrom.
	Log io.Writer
}

// Fetcher is a template.BundleRenderer. Give one Fetcher to every template a command reads, so
// that a bundle two templates name is pulled once. It is safe for concurrent use.
type Fetcher struct {
	opts  Options
	cache *cache

	mu       sync.Mutex
	rendered map[string]*result
	stats    Stats
}

// Stats counts where the distinct bundles of a run came from.
type Stats struct {
	Pulled, Cached, Taken, Reused int
	// Repaired cache entries were damaged and pulled again.
	Repaired int
}

type origin int

const (
	pulled origin = iota
	cached
	taken
)

type result struct {
	done   chan struct{}
	bundle fbc.Bundle
	origin origin
	err    error
}

// New makes a Fetcher. inputs are the local paths the command reads: the cache directory may
// not be one of them, nor lie inside or contain one.
func New(opts Options, inputs ...string) (*Fetcher, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	f := &Fetcher{opts: opts, rendered: map[string]*result{}}
	if opts.CacheDir != "" {
		if opts.BundlesFrom != "" {
			if r, err := source.Parse(opts.BundlesFrom); err == nil && r.Path != "" {
				inputs = append(inputs, r.Path)
			}
		}
		if err := source.CheckOutputPaths(opts.CacheDir, inputs...); err != nil {
			return nil, err
		}
		plat := opts.Images.Platform
		if plat == "" {
			plat = indeximage.DefaultPlatform
		}
		f.cache = &cache{dir: filepath.Join(opts.CacheDir, cacheSubdir), platform: plat}
	}
	return f, nil
}

// Stats is where the bundles rendered so far came from.
func (f *Fetcher) Stats() Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.stats
}

var _ template.BundleRenderer = (*Fetcher)(nil)

// RenderBundles renders one bundle per ref, in the order of refs. Each distinct ref is rendered
// once per Fetcher; the first error, in the order of refs, is returned (a *template.ImageError
// for an image that could not be pulled or read).
func (f *Fetcher) RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error) {
	before := f.Stats()
	all, mine := f.claim(refs)
	if len(mine) > 0 {
		rest, err := f.takeFromCatalog(ctx, mine)
		if err != nil {
			f.fail(mine, err)
			return nil, err
		}
		f.pullAll(ctx, rest)
	}
	out := make([]fbc.Bundle, len(refs))
	for i, ref := range refs {
		r := all[ref]
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			f.forgetFailed(refs)
			return nil, r.err
		}
		out[i] = r.bundle
	}
	f.report(before, len(mine), distinct(refs))
	return out, nil
}

// claim registers the refs no call has rendered or is rendering: this call renders them (mine).
// all has the result of every ref.
func (f *Fetcher) claim(refs []string) (all, mine map[string]*result) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all, mine = map[string]*result{}, map[string]*result{}
	for _, ref := range refs {
		if r, ok := f.rendered[ref]; ok {
			all[ref] = r
			continue
		}
		r := &result{done: make(chan struct{})}
		f.rendered[ref], mine[ref], all[ref] = r, r, r
	}
	return all, mine
}

func (f *Fetcher) finish(r *result, b fbc.Bundle, o origin, err error) {
	f.mu.Lock()
	r.bundle, r.origin, r.err = b, o, err
	if err == nil {
		switch o {
		case pulled:
			f.stats.Pulled++
		case cached:
			f.stats.Cached++
		case taken:
			f.stats.Taken++
		}
	}
	f.mu.Unlock()
	close(r.done)
}

func (f *Fetcher) fail(rs map[string]*result, err error) {
	for _, r := range rs {
		f.finish(r, fbc.Bundle{}, pulled, err)
	}
	f.mu.Lock()
	for ref := range rs {
		delete(f.rendered, ref)
	}
	f.mu.Unlock()
}

// forgetFailed lets a later call try the refs that failed again.
func (f *Fetcher) forgetFailed(refs []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ref := range refs {
		if r, ok := f.rendered[ref]; ok {
			select {
			case <-r.done:
				if r.err != nil {
					delete(f.rendered, ref)
				}
			default:
			}
		}
	}
}

// takeFromCatalog fills the refs the BundlesFrom catalog has a bundle for and returns the others.
func (f *Fetcher) takeFromCatalog(ctx context.Context, mine map[string]*result) (map[string]*result, error) {
	if f.opts.BundlesFrom == "" {
		return mine, nil
	}
	src, err := source.Open(ctx, f.opts.BundlesFrom, f.opts.Source)
	if err != nil {
		return nil, fmt.Errorf("--bundles-from: %w", err)
	}
	defer src.Close()
	found := map[string]fbc.Bundle{}
	err = src.Walk(ctx, func(b fbc.Blob) error {
		if b.Schema != fbc.SchemaBundle {
			return nil
		}
		var bundle fbc.Bundle
		if err := json.Unmarshal(b.Data, &bundle); err != nil {
			return nil // a broken blob is the catalog's problem; the image is pulled instead
		}
		if _, want := mine[bundle.Image]; want && bundle.Image != "" {
			if _, dup := found[bundle.Image]; !dup {
				found[bundle.Image] = bundle
			}
		}
		return nil
	})
	var lerrs *fbc.LoadErrors
	if err != nil && !errors.As(err, &lerrs) {
		return nil, fmt.Errorf("--bundles-from: %w", err)
	}
	rest := map[string]*result{}
	for ref, r := range mine {
		if b, ok := found[ref]; ok {
			f.finish(r, b, taken, nil)
		} else {
			rest[ref] = r
		}
	}
	return rest, nil
}

// pullAll pulls the refs with at most Parallel pulls in flight.
func (f *Fetcher) pullAll(ctx context.Context, rs map[string]*result) {
	jobs := make(chan string)
	var wg sync.WaitGroup
	workers := min(f.opts.Parallel, len(rs))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ref := range jobs {
				b, o, err := f.renderOne(ctx, ref)
				f.finish(rs[ref], b, o, err)
			}
		}()
	}
	for ref := range rs {
		jobs <- ref
	}
	close(jobs)
	wg.Wait()
}

// renderOne renders one bundle image: from the cache when the digest the ref names is there,
// else pulled (and then cached).
func (f *Fetcher) renderOne(ctx context.Context, ref string) (fbc.Bundle, origin, error) {
	if err := ctx.Err(); err != nil {
		return fbc.Bundle{}, pulled, err
	}
	images := f.opts.Images
	if f.cache == nil || !indeximage.IsRegistryRef(ref) {
		b, err := source.RenderBundleImage(ctx, ref, images)
		return b, pulled, err
	}
	imgErr := func(err error) error {
		return &template.ImageError{Ref: ref, Registry: indeximage.RegistryHost(ref), Err: err}
	}
	res, err := indeximage.ResolveDigest(ctx, ref, images)
	if err != nil {
		return fbc.Bundle{}, pulled, imgErr(err)
	}
	rendered, ok, err := f.cache.load(res.Digest)
	switch {
	case err == nil && ok:
		return bundledir.WithImage(rendered, ref), cached, nil
	case errors.Is(err, errCorrupt):
		f.mu.Lock()
		f.stats.Repaired++
		f.mu.Unlock()
	}
	img, err := indeximage.FetchBundle(ctx, res.DigestRef, images)
	if err != nil {
		return fbc.Bundle{}, pulled, imgErr(err)
	}
	b, err := source.ParseImageBundle(ref, img)
	if err == nil {
		rendered, err = b.Render("")
	}
	if err != nil {
		return fbc.Bundle{}, pulled, imgErr(err)
	}
	if err := f.cache.store(res.Digest, rendered); err != nil {
		f.warn("cannot write to the bundle cache %s: %v", f.cache.dir, err)
	}
	return bundledir.WithImage(rendered, ref), pulled, nil
}

func (f *Fetcher) warn(format string, args ...any) {
	if f.opts.Log != nil {
		fmt.Fprintf(f.opts.Log, "olmcat: "+format+"\n", args...)
	}
}

// report writes the line of one RenderBundles call: where its n distinct bundles came from.
func (f *Fetcher) report(before Stats, claimed, n int) {
	if f.opts.Log == nil || n == 0 {
		return
	}
	f.mu.Lock()
	f.stats.Reused += n - claimed
	now := f.stats
	f.mu.Unlock()
	var parts []string
	add := func(count int, what string) {
		if count > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count, what))
		}
	}
	add(now.Pulled-before.Pulled, "pulled")
	add(now.Cached-before.Cached, "from the cache")
	add(now.Taken-before.Taken, "from "+f.opts.BundlesFrom)
	add(n-claimed, "already rendered for another input")
	if r := now.Repaired - before.Repaired; r > 0 {
		parts = append(parts, fmt.Sprintf("%s repaired", plural.Of(r, "damaged cache entry")))
	}
	fmt.Fprintf(f.opts.Log, "olmcat: %s: %s\n", plural.Of(n, "bundle image"), strings.Join(parts, ", "))
}

func distinct(refs []string) int {
	seen := map[string]bool{}
	for _, r := range refs {
		seen[r] = true
	}
	return len(seen)
}
