package compat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// facts is what one side lists about its catalog: enough to plan every call and to apply the
// rules of the semantic normalizations (heads, default channels, edges, providers).
type facts struct {
	kind     Kind
	packages []string          // ListPackages, as answered
	served   map[string]bool   // packages GetPackage answers
	defaults map[string]string // package -> default channel
	heads    map[chanKey]string
	channels map[chanKey]bool // from GetPackage and ListBundles
	rows     map[chanKey]map[string]*rowFacts
	// truncated holds the (package, bundle) pairs that have the olm.deprecated property of
	// `opm registry deprecatetruncate`.
	truncated map[[2]string]bool
	// names holds one copy of each name the rows hold: bundle, API group, version and kind names
	// come back in many rows, each decoded into a string of its own.
	names map[string]string
	// apis numbers the provided APIs: rows hold their numbers (a bundle provides several, and
	// the same ones as its other rows and versions).
	apis   []gvk
	apiIDs map[gvk]int32
}

type chanKey struct{ pkg, ch string }

// rowFacts is one ListBundles row (a bundle in a channel).
type rowFacts struct {
	replaces  string
	skips     []string
	provides  []int32 // facts.apis
	truncated bool    // has the olm.deprecated property of `opm registry deprecatetruncate`
}

type gvk struct{ group, version, kind string }

func (f *facts) row(pkg, ch, csv string) *rowFacts {
	return f.rows[chanKey{pkg, ch}][csv]
}

func newFacts(kind Kind) *facts {
	return &facts{kind: kind, served: map[string]bool{}, defaults: map[string]string{},
		heads: map[chanKey]string{}, channels: map[chanKey]bool{}, rows: map[chanKey]map[string]*rowFacts{},
		truncated: map[[2]string]bool{}, names: map[string]string{}, apiIDs: map[gvk]int32{}}
}

// survey asks a side for its package list, its ListBundles rows and each package.
func survey(ctx context.Context, t Target, timeout time.Duration) (*facts, error) {
	f := newFacts(t.Kind())
	call := func(c *Call) (*Answer, error) {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		a, err := t.Invoke(cctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", t, shortMethod(c.Method), err)
		}
		return a, nil
	}
	a, err := call(&Call{ID: "survey", Method: ListPackages, Request: []byte("{}")})
	if err != nil {
		return nil, err
	}
	if a.Code != codes.OK {
		return nil, fmt.Errorf("%s: ListPackages failed: %s: %s", t, a.Code, a.Message)
	}
	for _, m := range a.Messages {
		f.packages = append(f.packages, m.(*api.PackageName).GetName())
	}
	listBundles := &Call{ID: "survey", Method: ListBundles, Request: []byte("{}")}
	if s, ok := t.(streamer); ok {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		a, err = s.invokeStream(cctx, listBundles, func(m proto.Message) { f.addRow(m.(*api.Bundle)) })
		cancel()
		if err != nil {
			return nil, fmt.Errorf("%s: ListBundles: %w", t, err)
		}
	} else if a, err = call(listBundles); err == nil {
		for _, m := range a.Messages {
			f.addRow(m.(*api.Bundle))
		}
	} else {
		return nil, err
	}
	if a.Code != codes.OK {
		return nil, fmt.Errorf("%s: ListBundles failed: %s: %s", t, a.Code, a.Message)
	}
	for _, name := range f.packages {
		req, _ := jsonObject("name", name)
		p, err := call(&Call{ID: "survey", Method: GetPackage, Request: req})
		if err != nil {
			return nil, err
		}
		if p.Unreachable() {
			return nil, fmt.Errorf("%s: GetPackage %s failed: %s: %s", t, name, p.Code, p.Message)
		}
		if p.Code != codes.OK || len(p.Messages) != 1 {
			continue
		}
		pkg := p.Messages[0].(*api.Package)
		f.served[name] = true
		f.defaults[name] = pkg.GetDefaultChannelName()
		for _, ch := range pkg.GetChannels() {
			k := chanKey{name, ch.GetName()}
			f.channels[k] = true
			f.heads[k] = ch.GetCsvName()
		}
	}
	return f, nil
}

func (f *facts) intern(s string) string {
	if v, ok := f.names[s]; ok {
		return v
	}
	f.names[s] = s
	return s
}

func (f *facts) apiID(g gvk) int32 {
	if id, ok := f.apiIDs[g]; ok {
		return id
	}
	id := int32(len(f.apis))
	f.apis = append(f.apis, g)
	f.apiIDs[g] = id
	return id
}

// provides reports whether row r provides g.
func (f *facts) provides(r *rowFacts, g gvk) bool {
	id, ok := f.apiIDs[g]
	return ok && slices.Contains(r.provides, id)
}

func (f *facts) addRow(b *api.Bundle) {
	k := chanKey{f.intern(b.GetPackageName()), f.intern(b.GetChannelName())}
	f.channels[k] = true
	r := &rowFacts{replaces: f.intern(b.GetReplaces())}
	if skips := b.GetSkips(); len(skips) > 0 {
		r.skips = make([]string, len(skips))
		for i, s := range skips {
			r.skips[i] = f.intern(s)
		}
	}
	if apis := b.GetProvidedApis(); len(apis) > 0 {
		r.provides = make([]int32, len(apis))
		for i, g := range apis {
			r.provides[i] = f.apiID(gvk{g.GetGroup(), g.GetVersion(), g.GetKind()})
		}
	}
	for _, p := range b.GetProperties() {
		if p.GetType() == "olm.deprecated" {
			r.truncated = true
			f.truncated[[2]string{k.pkg, b.GetCsvName()}] = true
		}
	}
	if f.rows[k] == nil {
		f.rows[k] = map[string]*rowFacts{}
	}
	f.rows[k][f.intern(b.GetCsvName())] = r
}

// replacers lists the bundles of a channel that replace or skip name: every answer
// GetBundleThatReplaces may legitimately give.
func (f *facts) replacers(pkg, ch, name string) map[string]bool {
	out := map[string]bool{}
	for csv, r := range f.rows[chanKey{pkg, ch}] {
		if r.replaces == name {
			out[csv] = true
			continue
		}
		for _, s := range r.skips {
			if s == name {
				out[csv] = true
			}
		}
	}
	return out
}
