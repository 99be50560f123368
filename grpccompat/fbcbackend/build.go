package fbcbackend

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/csvmeta"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/internal/bytepool"
	"github.com/olmcat/olmcat/internal/plural"
)

// InvalidCatalogError means the catalog cannot be served: it does not load, fails validation, or
// holds something opm serve refuses. Problems lists every one found, each located.
type InvalidCatalogError struct {
	Root     string
	Problems []string
}

func (e *InvalidCatalogError) Error() string {
	return fmt.Sprintf("catalog %s cannot be served (%s):\n%s", e.Root, plural.Of(len(e.Problems), "problem"), strings.Join(e.Problems, "\n"))
}

// builder turns a catalog into an index and a body store in one streaming pass: blobs are
// validated as they go by and bundles are converted on worker goroutines, so that no more than a
// few blobs are held at a time whatever the catalog's size.
type builder struct {
	store     *storeWriter
	validator *model.Validator

	mu       sync.Mutex
	problems []string
	bundles  map[[2]string]*bundleIndex // (package, name)

	packages     map[string]*pkgIndex
	channels     []fbc.Channel
	deprecations []fbc.Deprecation
	// legacyDeprecations come from olm.deprecated.channel channel properties (the older form); an
	// olm.deprecations entry for the same channel wins.
	legacyDeprecations []fbc.Deprecation
	metas              []*metaGroup
	metaByKey          map[[2]string]*metaGroup
}

func (b *builder) problem(loc fbc.Location, format string, args ...any) {
	b.mu.Lock()
	b.problems = append(b.problems, loc.String()+": "+fmt.Sprintf(format, args...))
	b.mu.Unlock()
}

// buildIndex reads the catalog, writing bodies to the store: in catalog order when reproducible
// (one conversion worker), else as the workers finish them.
func buildIndex(ctx context.Context, in Input, store *storeWriter, reproducible bool) (*index, error) {
	b := &builder{
		store: store, validator: model.NewValidator(model.Options{}),
		bundles: map[[2]string]*bundleIndex{}, packages: map[string]*pkgIndex{}, metaByKey: map[[2]string]*metaGroup{},
	}
	gc := boostGC()
	defer gc.end()
	workers := runtime.GOMAXPROCS(0)
	if reproducible {
		workers = 1
	}
	jobs := make(chan fbc.Blob, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for blob := range jobs {
				b.addBundle(blob)
				bytepool.Put(blob.Data) // nothing built from a bundle blob shares its memory
			}
		}()
	}
	walkErr := in.Walk(ctx, func(blob fbc.Blob) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		gc.blob()
		if blob.Schema == fbc.SchemaBundle {
			if err := b.validator.Add(blob); err != nil {
				return err
			}
			jobs <- blob
			return nil
		}
		// Decoded once, for the validator and the index both.
		var decoded fbc.Catalog
		if err := decoded.Add(blob); err != nil {
			return err // a *fbc.LoadError: the walk records it and goes on
		}
		b.validator.AdoptCatalog(&decoded)
		b.addOther(blob, &decoded)
		return nil
	})
	close(jobs)
	wg.Wait()
	if errors.Is(walkErr, context.Canceled) || errors.Is(walkErr, context.DeadlineExceeded) {
		return nil, walkErr
	}
	issues, err := b.validator.Finish(walkErr)
	if err != nil {
		return nil, err // not a problem of the catalog: I/O, or a failure of ours
	}
	problems := append(issueLines(issues.Errors()), b.problems...)
	if len(problems) > 0 {
		return nil, &InvalidCatalogError{Root: in.Name, Problems: problems}
	}
	return b.assemble(), nil
}

func issueLines(issues model.Issues) []string {
	out := make([]string, 0, len(issues))
	for _, i := range issues {
		out = append(out, i.Error())
	}
	return out
}

func (b *builder) addBundle(blob fbc.Blob) {
	c, err := convertBundle(blob.Data)
	if err != nil {
		b.problem(blob.Loc, "package %q, bundle %q: %v", blob.Package, blob.Name, err)
		return
	}
	light, err := proto.MarshalOptions{Deterministic: true}.Marshal(c.light)
	if err != nil {
		b.problem(blob.Loc, "bundle %q: %v", blob.Name, err)
		return
	}
	r := b.store.appendRecycled(c.record)
	b.mu.Lock()
	b.bundles[[2]string{c.pkg, c.name}] = &bundleIndex{Light: light, HasImage: c.light.BundlePath != "", Provided: c.provided, Body: r}
	b.mu.Unlock()
}

// addOther takes a blob of any schema but olm.bundle, decoded.
func (b *builder) addOther(blob fbc.Blob, decoded *fbc.Catalog) {
	switch blob.Schema {
	case fbc.SchemaPackage:
		p := decoded.Packages[0]
		if _, dup := b.packages[p.Name]; dup {
			return
		}
		pi := &pkgIndex{Name: p.Name, DefaultChannel: p.DefaultChannel, Description: p.Description}
		if p.Icon != nil {
			pi.Icon = csvmeta.IconOf(p.Icon.Data, p.Icon.MediaType)
		}
		b.packages[p.Name] = pi
	case fbc.SchemaChannel:
		ch := &decoded.Channels[0]
		b.channels = append(b.channels, fbc.Channel{Name: ch.Name, Package: ch.Package, Entries: ch.Entries})
		if msg, ok, err := property.LegacyChannelDeprecation(ch.Name, ch.Properties); err != nil {
			b.problem(blob.Loc, "channel %q of package %q: %v", ch.Name, ch.Package, err)
		} else if ok {
			b.legacyDeprecations = append(b.legacyDeprecations, fbc.Deprecation{Package: ch.Package,
				Entries: []fbc.DeprecationEntry{{Reference: fbc.Reference{Schema: fbc.SchemaChannel, Name: ch.Name}, Message: msg}}})
		}
	case fbc.SchemaDeprecations:
		b.deprecations = append(b.deprecations, decoded.Deprecations[0])
	default:
		if !api.ValidCustomSchemaName(blob.Schema) {
			b.problem(blob.Loc, "invalid custom schema meta: invalid schema %q: must match ^[a-zA-Z0-9][a-zA-Z0-9._-]*$ "+
				"(opm serve refuses such catalogs; rename the schema or list the file in .indexignore)", blob.Schema)
			return
		}
		norm, err := normalizeJSON(blob.Data)
		if err != nil {
			b.problem(blob.Loc, "schema %q: %v", blob.Schema, err)
			return
		}
		r := b.store.append(norm)
		key := [2]string{blob.Schema, blob.Package}
		g := b.metaByKey[key]
		if g == nil {
			g = &metaGroup{Schema: blob.Schema, Package: blob.Package}
			b.metaByKey[key] = g
			b.metas = append(b.metas, g)
		}
		g.Blobs = append(g.Blobs, r)
	}
}

// assemble links channels to bundles and applies deprecations; the catalog has passed validation,
// so every entry has its bundle and every channel one head.
func (b *builder) assemble() *index {
	ix := &index{Metas: b.metas}
	slot := map[[2]string]int{}
	keys := make([][2]string, 0, len(b.bundles))
	for k := range b.bundles {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		slot[k] = len(ix.Bundles)
		ix.Bundles = append(ix.Bundles, b.bundles[k])
	}
	for _, ch := range b.channels {
		p := b.packages[ch.Package]
		if p == nil {
			continue
		}
		ci := &channelIndex{Name: ch.Name}
		for _, e := range ch.Entries {
			ci.Entries = append(ci.Entries, &entryIndex{Name: e.Name, Replaces: e.Replaces, Skips: e.Skips,
				SkipRange: e.SkipRange, Bundle: slot[[2]string{ch.Package, e.Name}]})
		}
		sort.Slice(ci.Entries, func(i, j int) bool { return ci.Entries[i].Name < ci.Entries[j].Name })
		ci.Head = channelHead(ci.Entries)
		p.Channels = append(p.Channels, ci)
	}
	for _, p := range b.packages {
		sort.Slice(p.Channels, func(i, j int) bool { return p.Channels[i].Name < p.Channels[j].Name })
		ix.Packages = append(ix.Packages, p)
	}
	sort.Slice(ix.Packages, func(i, j int) bool { return ix.Packages[i].Name < ix.Packages[j].Name })
	pkgs := ix.link()
	for _, d := range append(b.legacyDeprecations, b.deprecations...) {
		p := pkgs[d.Package]
		if p == nil {
			continue
		}
		for _, e := range d.Entries {
			msg := e.Message
			switch e.Reference.Schema {
			case fbc.SchemaPackage:
				p.Deprecation = &msg
			case fbc.SchemaChannel:
				if c := p.byName[e.Reference.Name]; c != nil {
					c.Deprecation = &msg
				}
			case fbc.SchemaBundle:
				if i, ok := slot[[2]string{p.Name, e.Reference.Name}]; ok {
					ix.Bundles[i].Deprecation = &msg
				}
			}
		}
	}
	return ix
}
