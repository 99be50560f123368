package resolve

import (
	"slices"

	bsemver "github.com/blang/semver/v4"
)

// UpgradeEdges are, for every bundle of the package whose version operator-controller can read,
// the other bundles OLM v1 may upgrade its users to under the CatalogProvided policy with no
// channel asked: what Resolve lists as Successors for that bundle installed (successorsOf: an
// entry of any channel that replaces it, skips it or whose skipRange covers its version, or a
// bundle of the same version), the bundle itself left out, in catalog order. Asking channels only
// narrows these edges; a version range only narrows the pick among them.
//
// It reads each entry once and each skipRange against every bundle once (entries × bundles for
// the package), where asking Resolve for every bundle would read every entry for every pair.
func (r *Resolver) UpgradeEdges(pkg string) map[string][]string {
	p := r.packages[pkg]
	if p == nil {
		return nil
	}
	type installed struct {
		name string
		vr   versionRelease
		v    bsemver.Version // the version as Resolve parses the installed one (its legacy string)
	}
	var readable []installed
	seen := map[string]bool{}
	for _, b := range p.bundles {
		if seen[b.Name] {
			continue // the first bundle of a name is the one Resolve reports a version for
		}
		seen[b.Name] = true
		vr, err := r.version(b)
		if err != nil {
			continue
		}
		v, err := bsemver.Parse(vr.legacyString())
		if err != nil {
			continue
		}
		readable = append(readable, installed{b.Name, vr, v})
	}
	succ := map[string]map[string]bool{} // installed name -> names of bundles with an entry succeeding it
	add := func(from, to string) {
		if succ[from] == nil {
			succ[from] = map[string]bool{}
		}
		succ[from][to] = true
	}
	ranges := map[string]bsemver.Range{}
	for _, ch := range p.channels {
		for i := range ch.Entries {
			e := &ch.Entries[i]
			if e.Replaces != "" {
				add(e.Replaces, e.Name)
			}
			for _, s := range e.Skips {
				add(s, e.Name)
			}
			if e.SkipRange == "" {
				continue
			}
			rng, ok := ranges[e.SkipRange]
			if !ok {
				rng, _ = bsemver.ParseRange(e.SkipRange) // as successorsOf: a bad range covers nothing
				ranges[e.SkipRange] = rng
			}
			if rng == nil {
				continue
			}
			for _, in := range readable {
				if rng(in.v) {
					add(in.name, e.Name)
				}
			}
		}
	}
	out := map[string][]string{}
	for _, in := range readable {
		var list []string
		for _, b := range p.bundles {
			if b.Name == in.name || slices.Contains(list, b.Name) {
				continue
			}
			if succ[in.name][b.Name] {
				list = append(list, b.Name)
				continue
			}
			if vr, err := r.version(b); err == nil && in.vr.compare(vr) == 0 {
				list = append(list, b.Name)
			}
		}
		out[in.name] = list
	}
	return out
}
