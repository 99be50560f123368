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
	"strconv"
	"strings"
	"sync"
	"time"

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
	// MaxAge bounds the cache: the first time a Fetcher uses it, it removes the entries no run
	// has used for longer (see cache.go). 0 removes none.
	MaxAge time.Duration
	// BundlesFrom is a catalog reference whose bundles are taken, matched by their image, instead
	// of pulling them; "" takes none. It is opened with Source the first time a bundle is needed.
	BundlesFrom string
	Source      source.Options
	// Lent, if set, gives a source of BundlesFrom the caller has already opened (one of its
	// inputs), or nil when there is none open. The Fetcher reads a lent source and leaves it open:
	// the caller closes it. Without one the Fetcher opens BundlesFrom itself, and closes it.
	Lent func() *source.Source
	// Parallel bounds the pulls in flight; 0 means DefaultParallel.
	Parallel int
	// Log, if set, receives one line per RenderBundles call that says where its bundles came
	// from (pulled, the cache, BundlesFrom, another input), unless they were all just pulled.
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

	catalog   catalogBundles
	warnCache sync.Once
	prune     sync.Once
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
	f.report(before, len(mine), len(all))
	return out, nil
}

// claimed is a ref this call renders.
type claimed struct {
	ref string
	r   *result
}

// claim registers the refs no call has rendered or is rendering: this call renders them (mine,
// in the order of refs). all has the result of every ref.
func (f *Fetcher) claim(refs []string) (all map[string]*result, mine []claimed) {
	f.mu.Lock()
	defer f.mu.Unlock()
	all = map[string]*result{}
	for _, ref := range refs {
		if _, ok := all[ref]; ok {
			continue
		}
		if r, ok := f.rendered[ref]; ok {
			all[ref] = r
			continue
		}
		r := &result{done: make(chan struct{})}
		f.rendered[ref], all[ref] = r, r
		mine = append(mine, claimed{ref, r})
	}
	return all, mine
}

func (f *Fetcher) finish(r *result, b fbc.Bundle, o origin, err error) {
	f.mu.Lock()
	r.bundle, r.err = b, err
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

func (f *Fetcher) fail(cs []claimed, err error) {
	for _, c := range cs {
		f.finish(c.r, fbc.Bundle{}, pulled, err)
	}
	f.mu.Lock()
	for _, c := range cs {
		delete(f.rendered, c.ref)
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

// catalogBundles is what is known of the BundlesFrom catalog: the images of all its bundles, and
// the bundles wanted so far. A later call that wants another bundle the catalog has reads the
// catalog again; a bundle it does not have costs nothing.
type catalogBundles struct {
	mu      sync.Mutex
	read    bool
	images  map[string]bool
	bundles map[string]fbc.Bundle
}

// takeFromCatalog fills the refs the BundlesFrom catalog has a bundle for and returns the others.
func (f *Fetcher) takeFromCatalog(ctx context.Context, mine []claimed) ([]claimed, error) {
	if f.opts.BundlesFrom == "" {
		return mine, nil
	}
	c := &f.catalog
	c.mu.Lock()
	defer c.mu.Unlock()
	want := map[string]bool{}
	for _, m := range mine {
		if _, have := c.bundles[m.ref]; !have && (!c.read || c.images[m.ref]) {
			want[m.ref] = true
		}
	}
	if len(want) > 0 {
		if err := c.readFrom(ctx, f.openBundlesFrom, want); err != nil {
			return nil, err
		}
	}
	var rest []claimed
	for _, m := range mine {
		if b, ok := c.bundles[m.ref]; ok {
			f.finish(m.r, b, taken, nil)
			delete(c.bundles, m.ref) // the Fetcher keeps it now
		} else {
			rest = append(rest, m)
		}
	}
	return rest, nil
}

// openBundlesFrom gives the BundlesFrom catalog, lent when the caller has it open; release it when
// done.
func (f *Fetcher) openBundlesFrom(ctx context.Context) (src *source.Source, release func(), err error) {
	if f.opts.Lent != nil {
		if src := f.opts.Lent(); src != nil && !src.Closed() {
			return src, func() {}, nil
		}
	}
	src, err = source.Open(ctx, f.opts.BundlesFrom, f.opts.Source)
	if err != nil {
		return nil, nil, err
	}
	return src, func() { src.Close() }, nil
}

// readFrom walks the catalog open gives, keeping the bundles whose image is wanted.
func (c *catalogBundles) readFrom(ctx context.Context, open func(context.Context) (*source.Source, func(), error), want map[string]bool) error {
	src, release, err := open(ctx)
	if err != nil {
		return fmt.Errorf("--bundles-from: %w", err)
	}
	defer release()
	images, bundles := map[string]bool{}, map[string]fbc.Bundle{}
	err = src.Walk(ctx, func(b fbc.Blob) error {
		if b.Schema != fbc.SchemaBundle {
			return nil
		}
		var bundle fbc.Bundle
		if err := json.Unmarshal(b.Data, &bundle); err != nil || bundle.Image == "" {
			return nil // a broken blob is the catalog's problem; the image is pulled instead
		}
		images[bundle.Image] = true
		if _, dup := bundles[bundle.Image]; want[bundle.Image] && !dup {
			bundles[bundle.Image] = bundle
		}
		return nil
	})
	var lerrs *fbc.LoadErrors
	if err != nil && !errors.As(err, &lerrs) {
		return fmt.Errorf("--bundles-from: %w", err)
	}
	c.read, c.images = true, images
	if c.bundles == nil {
		c.bundles = map[string]fbc.Bundle{}
	}
	for image, b := range bundles {
		c.bundles[image] = b
	}
	return nil
}

// pullAll pulls the refs, in their order, with at most Parallel pulls in flight.
func (f *Fetcher) pullAll(ctx context.Context, cs []claimed) {
	jobs := make(chan claimed)
	var wg sync.WaitGroup
	for range min(f.opts.Parallel, len(cs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				b, o, err := f.renderOne(ctx, c.ref)
				f.finish(c.r, b, o, err)
			}
		}()
	}
	for _, c := range cs {
		jobs <- c
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
	imgErr := func(err error) error { return source.BundleImageError(ref, err) }
	res, err := indeximage.ResolveDigest(ctx, ref, images)
	if err != nil {
		return fbc.Bundle{}, pulled, imgErr(err)
	}
	f.prune.Do(f.pruneCache)
	rendered, ok, err := f.cache.load(ctx, ref, res.Digest, images)
	switch {
	case err == nil && ok:
		return bundledir.WithImage(rendered, ref), cached, nil
	case errors.Is(err, errCorrupt):
		f.mu.Lock()
		f.stats.Repaired++
		f.mu.Unlock()
		f.warn("bundle cache: the entry of %s (%s) does not verify, it was damaged or tampered with; pulled again and replaced: %s",
			ref, res.Digest, strings.TrimPrefix(err.Error(), errCorrupt.Error()+": "))
	case ctx.Err() != nil:
		return fbc.Bundle{}, pulled, ctx.Err()
	}
	rendered, err = f.pullKeeping(ctx, ref, res)
	if err != nil {
		return fbc.Bundle{}, pulled, imgErr(err)
	}
	return bundledir.WithImage(rendered, ref), pulled, nil
}

// pullKeeping pulls the image res names and renders its bundle, keeping the image's blobs as the
// cache entry of its digest once the bundle is rendered. A cache that cannot be written is said
// once; the bundle is pulled all the same.
func (f *Fetcher) pullKeeping(ctx context.Context, ref string, res indeximage.Resolution) (fbc.Bundle, error) {
	cantKeep := func(err error) {
		f.warnCache.Do(func() {
			f.warn("cannot write to the bundle cache %s (bundles are pulled, not kept): %v", f.cache.dir, err)
		})
	}
	entry, err := f.cache.newEntry(res.Digest)
	if err != nil {
		cantKeep(err)
		img, err := indeximage.FetchBundle(ctx, res.DigestRef, f.opts.Images)
		if err != nil {
			return fbc.Bundle{}, err
		}
		return renderBundle(ref, img)
	}
	defer entry.Abort()
	img, keepErr, err := indeximage.FetchBundleKeeping(ctx, res.DigestRef, f.opts.Images, entry.Path())
	if err != nil {
		return fbc.Bundle{}, err
	}
	rendered, err := renderBundle(ref, img)
	if err != nil {
		return fbc.Bundle{}, err
	}
	if keepErr == nil {
		keepErr = entry.Commit()
	}
	if keepErr != nil {
		cantKeep(keepErr)
	}
	return rendered, nil
}

// pruneCache removes the cache entries not used for MaxAge and those of the earlier format, and
// says so when there were any.
func (f *Fetcher) pruneCache() {
	unused, old, err := f.cache.prune(f.opts.MaxAge, time.Now())
	if err != nil {
		f.warn("cannot prune the bundle cache %s: %v", f.cache.dir, err)
		return
	}
	if unused > 0 {
		f.warn("bundle cache %s: removed %s no run used for %s", f.cache.dir, plural.Of(unused, "entry"), FormatAge(f.opts.MaxAge))
	}
	if old > 0 {
		f.warn("bundle cache %s: removed %s of an earlier olmcat, which kept rendered bundles that cannot be verified; their images are pulled again", f.cache.dir, plural.Of(old, "entry"))
	}
}

// FormatAge writes a cache age as --cache-max-age takes it: whole days as "30d".
func FormatAge(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}

// ParseAge reads a cache age: a number of days ("30d") or a Go duration ("36h", "90m"); "0"
// means no limit.
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100000 {
			return 0, fmt.Errorf("invalid age %q: give days (30d) or a duration (36h)", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid age %q: give days (30d) or a duration (36h)", s)
	}
	return d, nil
}

func (f *Fetcher) warn(format string, args ...any) {
	if f.opts.Log != nil {
		fmt.Fprintf(f.opts.Log, "olmcat: "+format+"\n", args...)
	}
}

// report writes the line of one RenderBundles call: where its n distinct bundles came from. It is
// written when it tells more than "pulled": with a cache or a catalog to take bundles from, or when
// another input had rendered some (opm's commands print nothing on success, nor does olmcat then).
func (f *Fetcher) report(before Stats, claimed, n int) {
	f.mu.Lock()
	f.stats.Reused += n - claimed
	now := f.stats
	f.mu.Unlock()
	useful := f.cache != nil || f.opts.BundlesFrom != "" || n > claimed
	if f.opts.Log == nil || n == 0 || !useful {
		return
	}
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
