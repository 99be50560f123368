package diff

import (
	"sort"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// index is one side arranged for comparison: blobs by package and name (the serialized form, for
// comparing text) next to the semantic model (for versions and graphs).
type index struct {
	side     *Side
	catalog  *fbc.Catalog
	problems model.Issues // load problems, then validation problems once validate has run
	packages map[string]*pkgIndex
	provides *model.Provision // what the side's bundles provide to requirements
	channels int
	bundles  int
}

// pkgIndex is everything one side says about one package. The first blob of a name wins, as in the
// model; duplicates are validation problems.
type pkgIndex struct {
	name         string
	blob         *fbc.Package // nil when the side has no olm.package blob for it
	model        *model.Package
	channels     map[string]*fbc.Channel
	bundles      map[string]*fbc.Bundle
	deprecations map[deprecationRef]string // what is deprecated -> message
	others       []fbc.Meta
}

type deprecationRef struct {
	schema string // olm.package, olm.channel or olm.bundle
	name   string
}

func newIndex(s *Side) *index {
	if s == nil {
		s = &Side{}
	}
	cat := s.Catalog
	if cat == nil {
		cat = &fbc.Catalog{}
	}
	m, _ := model.FromCatalog(cat)
	idx := &index{side: s, packages: map[string]*pkgIndex{}, catalog: cat, provides: model.NewProvision(m)}
	idx.problems = append(idx.problems, s.Problems...)

	pkg := func(name string) *pkgIndex {
		p := idx.packages[name]
		if p == nil {
			p = &pkgIndex{name: name, channels: map[string]*fbc.Channel{}, bundles: map[string]*fbc.Bundle{},
				deprecations: map[deprecationRef]string{}, model: m.Packages[name]}
			idx.packages[name] = p
		}
		return p
	}
	for i := range cat.Packages {
		p := pkg(cat.Packages[i].Name)
		if p.blob == nil {
			p.blob = &cat.Packages[i]
		}
	}
	for i := range cat.Channels {
		ch := &cat.Channels[i]
		p := pkg(ch.Package)
		if _, dup := p.channels[ch.Name]; !dup {
			p.channels[ch.Name] = ch
			idx.channels++
		}
	}
	for i := range cat.Bundles {
		b := &cat.Bundles[i]
		p := pkg(b.Package)
		if _, dup := p.bundles[b.Name]; !dup {
			p.bundles[b.Name] = b
			idx.bundles++
		}
	}
	for _, d := range cat.Deprecations {
		p := pkg(d.Package)
		for _, e := range d.Entries {
			ref := deprecationRef{schema: e.Reference.Schema, name: e.Reference.Name}
			if _, dup := p.deprecations[ref]; !dup {
				p.deprecations[ref] = e.Message
			}
		}
	}
	for _, o := range cat.Others {
		p := pkg(o.Package)
		p.others = append(p.others, o)
	}
	return idx
}

func (idx *index) summary() SideSummary {
	s := SideSummary{Source: idx.side.Source, Format: idx.side.Format, Channels: idx.channels,
		Bundles: idx.bundles, Problems: len(idx.problems)}
	for _, p := range idx.packages {
		if p.blob != nil {
			s.Packages++
		}
	}
	return s
}

// channel returns the model's channel of that name, or nil.
func (p *pkgIndex) modelChannel(name string) *model.Channel {
	if p == nil || p.model == nil {
		return nil
	}
	return p.model.Channels[name]
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
