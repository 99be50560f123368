// Package bundlefetch renders the bundle images a catalog template names, faster than opm: it
// pulls them in parallel, each distinct reference once per run, keeps pulled bundles in a
// content-addressed cache (--cache-dir, keyed by manifest digest: a tag is resolved again on every
// run with one manifest request, a digest never is), and takes bundles it already has from the
// catalogs the user names (--bundles-from, in the form the command renders), pulling only what is
// missing. Bundles are pulled and
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/property"
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
	// BundlesFrom are catalog references whose bundles are taken, matched by their image, instead
	// of pulling them; none takes none. Each is opened with Source the first time a bundle is
	// needed, and once only: the Fetcher keeps it open until Close. When two hold a bundle
	// differently, the first given wins and the difference is said on Log.
	BundlesFrom []string
	Source      source.Options
	// CSVMetadata says the bundles are rendered in olm.csv.metadata form (--migrate-level
	// bundle-object-to-csv-metadata). A catalog's bundle is taken only when it gives what pulling
	// its image would: olm.bundle.object manifests always (the migration makes them
	// olm.csv.metadata, as opm's does), olm.csv.metadata only with CSVMetadata. Other bundles are
	// pulled, and an image that cannot be pulled then says which catalog holds it in which form.
	CSVMetadata bool
	// Lent, if set, gives a source of the BundlesFrom reference ref that the caller has already
	// opened (one of its inputs), or nil when there is none open. The Fetcher reads a lent source
	// and leaves it open: the caller closes it. Without one the Fetcher opens ref itself.
	Lent func(ref string) *source.Source
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

	catalogs  []*catalogBundles // one per BundlesFrom, in its order
	unfit     map[string]held   // refs pulled although a catalog holds them, in another form
	warnCache sync.Once
	iconsSaid map[string]bool // packages whose missing icon was said
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
	f := &Fetcher{opts: opts, rendered: map[string]*result{}, unfit: map[string]held{}, iconsSaid: map[string]bool{}}
	for _, ref := range opts.BundlesFrom {
		if !slices.ContainsFunc(f.catalogs, func(c *catalogBundles) bool { return c.ref == ref }) { // a repeated one is opened once
			f.catalogs = append(f.catalogs, &catalogBundles{ref: ref})
		}
	}
	if opts.CacheDir != "" {
		for _, ref := range opts.BundlesFrom {
			if r, err := source.Parse(ref); err == nil && r.Path != "" {
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
		f.cache = &cache{dir: filepath.Join(opts.CacheDir, cacheSubdir), platform: plat, warn: f.warn}
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
// once per Fetcher. When images cannot be pulled or read, the error is a template.ImageErrors
// naming every one of them, in the order of refs; any other error is the first met.
func (f *Fetcher) RenderBundles(ctx context.Context, refs []string) ([]fbc.Bundle, error) {
	before := f.Stats()
	all, mine := f.claim(refs)
	var takenBy []int
	if len(mine) > 0 {
		rest, by, err := f.takeFromCatalog(ctx, mine)
		if err != nil {
			f.fail(mine, err)
			return nil, err
		}
		takenBy = by
		f.pullAll(ctx, rest)
	}
	out := make([]fbc.Bundle, len(refs))
	var unread unreadImages
	for i, ref := range refs {
		r := all[ref]
		select {
		case <-r.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if r.err != nil {
			unread.add(f, ref, r.err)
			continue
		}
		out[i] = r.bundle
	}
	if err := unread.err(); err != nil {
		f.forgetFailed(refs)
		return nil, err
	}
	f.report(before, len(mine), len(all), takenBy)
	return out, nil
}

// withHolder is img, saying which catalog holds its bundle in another form when one does.
func (f *Fetcher) withHolder(img *template.ImageError) *template.ImageError {
	f.mu.Lock()
	h, ok := f.unfit[img.Ref]
	f.mu.Unlock()
	if !ok || img.HeldBy != "" {
		return img
	}
	e := *img
	e.HeldBy, e.HeldAs = h.catalog, h.form.String()
	return &e
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

// unreadImages are the images one call could not render, in the order of its refs: every image
// that could not be pulled or read (a template.ImageErrors, each named once), or else the first
// other error.
type unreadImages struct {
	images template.ImageErrors
	other  error
	said   map[string]bool
}

func (u *unreadImages) add(f *Fetcher, ref string, err error) {
	var img *template.ImageError
	switch {
	case u.said[ref]:
	case errors.As(err, &img) && u.other == nil:
		if u.said == nil {
			u.said = map[string]bool{}
		}
		u.said[ref] = true
		u.images = append(u.images, f.withHolder(img))
	case u.other == nil && len(u.images) == 0:
		u.other = err
	}
}

func (u *unreadImages) failed() bool { return u.other != nil || len(u.images) > 0 }

func (u *unreadImages) err() error {
	switch {
	case u.other != nil:
		return u.other
	case len(u.images) > 0:
		return u.images
	}
	return nil
}

func (f *Fetcher) finish(r *result, b fbc.Bundle, o origin, err error) {
	f.mu.Lock()
	r.bundle, r.err = b, err
	f.mu.Unlock()
	if err == nil {
		f.count(o)
	}
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

// form is how a catalog holds a bundle's manifests.
type form int

const (
	formOther       form = iota // neither: no manifests at all
	formObjects                 // olm.bundle.object, as `opm render IMAGE` prints them
	formCSVMetadata             // olm.csv.metadata, as --migrate-level bundle-object-to-csv-metadata prints them
)

func (f form) String() string {
	switch f {
	case formObjects:
		return property.TypeBundleObject
	case formCSVMetadata:
		return property.TypeCSVMetadata
	}
	return "neither olm.bundle.object nor olm.csv.metadata"
}

func formOf(b fbc.Bundle) form {
	out := formOther
	for _, p := range b.Properties {
		switch p.Type {
		case property.TypeBundleObject:
			return formObjects
		case property.TypeCSVMetadata:
			out = formCSVMetadata
		}
	}
	return out
}

// fits reports whether a bundle held in form h gives what pulling its image gives: manifests are
// always what opm renders (the migration, when asked, makes them olm.csv.metadata as it does for a
// pulled bundle); olm.csv.metadata only when that is what is rendered.
func (f *Fetcher) fits(h form) bool {
	return h == formObjects || (h == formCSVMetadata && f.opts.CSVMetadata)
}

// held is a catalog that holds a bundle, and in which form.
type held struct {
	catalog string
	form    form
}

// catalogBundles is what is known of one BundlesFrom catalog: the form of the bundle of each of
// its images, the icons of its packages, and the bundles wanted so far. A later call that wants
// another bundle the catalog has walks it again (it stays open); one it does not have costs
// nothing.
type catalogBundles struct {
	ref string

	mu      sync.Mutex
	read    bool
	images  map[string]form
	icons   map[string]*fbc.Icon // by package, for the packages it has an olm.package blob of
	bundles map[string]fbc.Bundle
	src     *source.Source // opened by the Fetcher, closed by Close
}

// takeFromCatalog fills the refs a BundlesFrom catalog has a fitting bundle for, from the first
// catalog that has one, and returns the others; takenBy counts the bundles taken from each
// catalog. A bundle that a later catalog holds differently (in the same form) is said on Log.
func (f *Fetcher) takeFromCatalog(ctx context.Context, mine []claimed) (rest []claimed, takenBy []int, err error) {
	if len(f.catalogs) == 0 {
		return mine, nil, nil
	}
	type holding struct {
		catalog int
		bundle  fbc.Bundle
	}
	found := map[string][]holding{}
	unfit := map[string]held{}
	for i, c := range f.catalogs {
		got, other, err := c.take(ctx, f, mine)
		if err != nil {
			return nil, nil, err
		}
		for ref, b := range got {
			found[ref] = append(found[ref], holding{i, b})
		}
		for ref, h := range other {
			if _, ok := unfit[ref]; !ok {
				unfit[ref] = held{c.ref, h}
			}
		}
	}
	takenBy = make([]int, len(f.catalogs))
	var unfitRefs []string
	for _, m := range mine {
		hs := found[m.ref]
		if len(hs) == 0 {
			rest = append(rest, m)
			if h, ok := unfit[m.ref]; ok {
				f.mu.Lock()
				f.unfit[m.ref] = h
				f.mu.Unlock()
				unfitRefs = append(unfitRefs, m.ref)
			}
			continue
		}
		first := hs[0]
		for _, h := range hs[1:] {
			if formOf(h.bundle) == formOf(first.bundle) && !sameBundle(h.bundle, first.bundle) {
				f.warn("warning: bundle image %s: --bundles-from %s and %s hold it differently (bundle %q and %q); it is taken from %s, the first given",
					m.ref, f.catalogs[first.catalog].ref, f.catalogs[h.catalog].ref, first.bundle.Name, h.bundle.Name, f.catalogs[first.catalog].ref)
			}
		}
		takenBy[first.catalog]++
		f.finish(m.r, first.bundle, taken, nil)
	}
	if len(unfitRefs) > 0 {
		h := unfit[unfitRefs[0]]
		f.warn("warning: %s %s in --bundles-from %s as %s, which is not what this render prints (%s): pulled instead%s",
			plural.Of(len(unfitRefs), "bundle image"), isAre(len(unfitRefs)), h.catalog, h.form, f.printedForm(), f.migrateHint(h.form))
	}
	return rest, takenBy, nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// printedForm is the form of the bundles this render prints.
func (f *Fetcher) printedForm() string {
	if f.opts.CSVMetadata {
		return property.TypeCSVMetadata + ", with --migrate-level bundle-object-to-csv-metadata"
	}
	return property.TypeBundleObject + ", as opm renders a bundle image without --migrate-level"
}

func (f *Fetcher) migrateHint(h form) string {
	if h == formCSVMetadata && !f.opts.CSVMetadata {
		return "; give --migrate-level bundle-object-to-csv-metadata when the catalog is rendered so, to take them"
	}
	return ""
}

// sameBundle reports whether two catalogs hold the same bundle (their locations aside).
func sameBundle(a, b fbc.Bundle) bool {
	a.Loc, b.Loc = fbc.Location{}, fbc.Location{}
	ja, erra := json.Marshal(a)
	jb, errb := json.Marshal(b)
	return erra == nil && errb == nil && string(ja) == string(jb)
}

// take gives the bundles of the claimed refs the catalog holds in a fitting form (got), and the
// form of those it holds in another (other).
func (c *catalogBundles) take(ctx context.Context, f *Fetcher, mine []claimed) (got map[string]fbc.Bundle, other map[string]form, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	want := map[string]bool{}
	for _, m := range mine {
		h, has := c.images[m.ref]
		if _, kept := c.bundles[m.ref]; !kept && (!c.read || (has && f.fits(h))) {
			want[m.ref] = true
		}
	}
	if len(want) > 0 {
		if err := c.readFrom(ctx, f, want); err != nil {
			return nil, nil, err
		}
	}
	got, other = map[string]fbc.Bundle{}, map[string]form{}
	for _, m := range mine {
		if b, ok := c.bundles[m.ref]; ok {
			got[m.ref] = b
			delete(c.bundles, m.ref) // the Fetcher keeps it now
		} else if h, has := c.images[m.ref]; has {
			other[m.ref] = h
		}
	}
	return got, other, nil
}

// open gives the catalog: lent when the caller has it open, else opened by the Fetcher the
// first time and kept open until Close, so that each reference is opened once.
func (c *catalogBundles) open(ctx context.Context, f *Fetcher) (*source.Source, error) {
	if f.opts.Lent != nil {
		if src := f.opts.Lent(c.ref); src != nil && !src.Closed() {
			return src, nil
		}
	}
	if c.src == nil {
		src, err := source.Open(ctx, c.ref, f.opts.Source)
		if err != nil {
			return nil, err
		}
		c.src = src
	}
	return c.src, nil
}

// readFrom walks the catalog, keeping the bundles whose image is wanted and fits, the form of
// every image's bundle and the icon of every package.
func (c *catalogBundles) readFrom(ctx context.Context, f *Fetcher, want map[string]bool) error {
	src, err := c.open(ctx, f)
	if err != nil {
		return fmt.Errorf("--bundles-from: %w", err)
	}
	images, icons, bundles := map[string]form{}, map[string]*fbc.Icon{}, map[string]fbc.Bundle{}
	err = src.Walk(ctx, func(b fbc.Blob) error {
		switch b.Schema {
		case fbc.SchemaPackage:
			var pkg struct {
				Name string    `json:"name"`
				Icon *fbc.Icon `json:"icon"`
			}
			if json.Unmarshal(b.Data, &pkg) == nil && pkg.Name != "" {
				if _, dup := icons[pkg.Name]; !dup {
					icons[pkg.Name] = pkg.Icon
				}
			}
			return nil
		case fbc.SchemaBundle:
		default:
			return nil
		}
		var bundle fbc.Bundle
		if err := json.Unmarshal(b.Data, &bundle); err != nil || bundle.Image == "" {
			return nil // a broken blob is the catalog's problem; the image is pulled instead
		}
		if _, dup := images[bundle.Image]; dup {
			return nil // the first bundle of an image is the one taken
		}
		h := formOf(bundle)
		images[bundle.Image] = h
		if want[bundle.Image] && f.fits(h) {
			bundles[bundle.Image] = bundle
		}
		return nil
	})
	var lerrs *fbc.LoadErrors
	if err != nil && !errors.As(err, &lerrs) {
		return fmt.Errorf("--bundles-from: %w", err)
	}
	c.read, c.images, c.icons = true, images, icons
	if c.bundles == nil {
		c.bundles = map[string]fbc.Bundle{}
	}
	for image, b := range bundles {
		c.bundles[image] = b
	}
	return nil
}

// PackageIcon is the icon of package pkg in the first BundlesFrom catalog that has its olm.package
// blob (template.PackageIconer). When none has one, it says so on Log, once per package.
func (f *Fetcher) PackageIcon(pkg string) (*fbc.Icon, bool) {
	var refs []string
	for _, c := range f.catalogs {
		c.mu.Lock()
		icon, ok := c.icons[pkg]
		c.mu.Unlock()
		if ok {
			return icon, true
		}
		refs = append(refs, c.ref)
	}
	f.mu.Lock()
	said := f.iconsSaid[pkg]
	f.iconsSaid[pkg] = true
	f.mu.Unlock()
	if !said {
		f.warn("warning: package %s: the head of its default channel is taken from --bundles-from %s as %s, which keeps no icon, and no olm.package blob there gives the icon opm takes from the bundle image's CSV: the olm.package blob is written without an icon (leave out --bundles-from to pull the bundles for it)",
			pkg, strings.Join(refs, ", "), property.TypeCSVMetadata)
	}
	return nil, false
}

// Close closes the BundlesFrom catalogs the Fetcher opened (not the lent ones).
func (f *Fetcher) Close() error {
	var first error
	for _, c := range f.catalogs {
		c.mu.Lock()
		if c.src != nil {
			if err := c.src.Close(); err != nil && first == nil {
				first = err
			}
			c.src = nil
		}
		c.mu.Unlock()
	}
	return first
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
	if err := images.CheckUntrusted(ref); err != nil {
		return fbc.Bundle{}, pulled, source.BundleImageError(ref, err)
	}
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
		keepErr = f.cache.commit(entry, res.Digest)
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
func (f *Fetcher) report(before Stats, claimed, n int, takenBy []int) {
	f.mu.Lock()
	f.stats.Reused += n - claimed
	now := f.stats
	f.mu.Unlock()
	useful := f.cache != nil || len(f.opts.BundlesFrom) > 0 || n > claimed
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
	for i, count := range takenBy {
		add(count, "from "+f.catalogs[i].ref)
	}
	add(n-claimed, "already rendered for another input")
	if r := now.Repaired - before.Repaired; r > 0 {
		parts = append(parts, fmt.Sprintf("%s repaired", plural.Of(r, "damaged cache entry")))
	}
	fmt.Fprintf(f.opts.Log, "olmcat: %s: %s\n", plural.Of(n, "bundle image"), strings.Join(parts, ", "))
}
