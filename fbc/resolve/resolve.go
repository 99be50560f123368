// Package resolve answers what OLM v1 (operator-controller) installs or upgrades to for a
// ClusterExtension, from a catalog: the rules of operator-controller's resolve.CatalogResolver with
// NoDependencyValidation, read from its code at df2c201d (2026-08-21), not from its documentation.
//
// The pick is the highest version among the candidates, never the channel head and never the end of
// the replaces chain:
//   - candidates are the package's bundles that are entries of an asked channel (no channel asked:
//     every bundle of the package; the default channel plays no part), whose version is in the asked
//     range (Masterminds semver constraints: a prerelease matches only a range naming a prerelease),
//     and, when a bundle is installed and the policy is CatalogProvided, that are its successors;
//   - successors of the installed bundle are the bundles with a channel entry (in the asked channels,
//     or any channel) that replaces it, skips it or whose skipRange covers its version, plus every
//     bundle of the same version (the installed one itself included);
//   - candidates deprecated by the package's olm.deprecations sort last; then higher versions first
//     (build metadata that is a valid release counts as one: 1.0.0+2 above 1.0.0+1 above 1.0.0);
//     equal versions keep catalog order;
//   - a pick with an olm.package.required, olm.gvk.required or olm.constraint property is refused
//     (operator-controller does not resolve dependencies), with no fallback to another bundle.
//
// Errors are operator-controller's own words, so that they can be compared with what a cluster says.
package resolve

import (
	"fmt"
	"slices"
	"strings"

	mmsemver "github.com/Masterminds/semver/v3"
	bsemver "github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
)

// Upgrade constraint policies of a ClusterExtension.
const (
	CatalogProvided = "CatalogProvided" // the default: upgrades only along the catalog's edges
	SelfCertified   = "SelfCertified"   // any bundle may replace the installed one
)

// Installed is the bundle a ClusterExtension has installed, as its status reports it.
type Installed struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Query is what a ClusterExtension asks of its catalog source.
type Query struct {
	Package   string     `json:"package"`
	Channels  []string   `json:"channels,omitempty"`
	Version   string     `json:"version,omitempty"` // a version range; "" is any
	Policy    string     `json:"policy,omitempty"`  // "" is CatalogProvided
	Installed *Installed `json:"installed,omitempty"`
}

// Answer is what OLM v1 resolves for a query: a bundle, or an error in operator-controller's words.
type Answer struct {
	Bundle        string `json:"bundle,omitempty"`
	BundleVersion string `json:"bundleVersion,omitempty"`
	Error         string `json:"error,omitempty"`
	// PickedBeforeValidation is the bundle that the dependency validation refused (set with Error).
	PickedBeforeValidation string `json:"pickedBeforeValidation,omitempty"`
	// Successors are the package's bundles the upgrade edges allow from the installed bundle, in
	// catalog order; nil when nothing is installed or the policy is SelfCertified.
	Successors []string `json:"successors,omitempty"`
	// Note qualifies an OLM v0 pick (dependencies olmcat does not resolve).
	Note string `json:"note,omitempty"`
}

// Resolver resolves queries against one catalog (a single ClusterCatalog).
type Resolver struct {
	packages       map[string]*pkgView
	defaultChannel map[string]string                         // by package (OLM v0 orders it first)
	versions       map[*fbc.Bundle]bundleVer                 // parsed once per bundle
	skipRanges     map[string]bsemver.Range                  // parsed once per text; nil: unparsable, covers nothing
	entryIndex     map[string]map[string][]*fbc.ChannelEntry // entriesOf, by package and channels asked
}

type bundleVer struct {
	vr  versionRelease
	err error
}

// pkgView is what operator-controller's catalog client hands the resolver for one package: its
// blobs in catalog order.
type pkgView struct {
	blobs       int // package, channel, bundle, deprecation and other blobs
	channels    []*fbc.Channel
	bundles     []*fbc.Bundle
	deprecation *fbc.Deprecation // the first of the package; only it counts
}

// New indexes a catalog for resolution. Deferred bundles are decoded.
func New(cat *fbc.Catalog) (*Resolver, error) {
	r := &Resolver{packages: map[string]*pkgView{}, defaultChannel: map[string]string{}, versions: map[*fbc.Bundle]bundleVer{}, skipRanges: map[string]bsemver.Range{}}
	view := func(name string) *pkgView {
		p := r.packages[name]
		if p == nil {
			p = &pkgView{}
			r.packages[name] = p
		}
		p.blobs++
		return p
	}
	for i := range cat.Packages {
		view(cat.Packages[i].Name)
		if _, seen := r.defaultChannel[cat.Packages[i].Name]; !seen {
			r.defaultChannel[cat.Packages[i].Name] = cat.Packages[i].DefaultChannel
		}
	}
	for i := range cat.Channels {
		p := view(cat.Channels[i].Package)
		p.channels = append(p.channels, &cat.Channels[i])
	}
	var deferred []*fbc.Bundle
	for i := range cat.Bundles {
		b := &cat.Bundles[i]
		if b.Deferred() {
			deferred = append(deferred, b)
		}
		p := view(b.Package)
		p.bundles = append(p.bundles, b)
	}
	if len(deferred) > 0 {
		if err := fbc.DecodeBundles(deferred); err != nil {
			return nil, err
		}
	}
	for i := range cat.Deprecations {
		p := view(cat.Deprecations[i].Package)
		if p.deprecation == nil {
			p.deprecation = &cat.Deprecations[i]
		}
	}
	for i := range cat.Others {
		if cat.Others[i].Package != "" {
			view(cat.Others[i].Package)
		}
	}
	return r, nil
}

func (r *Resolver) version(b *fbc.Bundle) (versionRelease, error) {
	v, ok := r.versions[b]
	if !ok {
		v.vr, v.err = bundleVersion(b)
		r.versions[b] = v
	}
	return v.vr, v.err
}

// HasPackage says whether the catalog holds anything of the package.
func (r *Resolver) HasPackage(pkg string) bool {
	p := r.packages[pkg]
	return p != nil && p.blobs > 0
}

// Channels are the names of the package's channels, in catalog order.
func (r *Resolver) Channels(pkg string) []string {
	var out []string
	if p := r.packages[pkg]; p != nil {
		for _, ch := range p.channels {
			out = append(out, ch.Name)
		}
	}
	return out
}

// MissingChannels are the asked channels the package does not have.
func (r *Resolver) MissingChannels(pkg string, asked []string) []string {
	have := r.Channels(pkg)
	var out []string
	for _, c := range asked {
		if !slices.Contains(have, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// BundleVersion is the version operator-controller reports for the named bundle of the package (what
// a ClusterExtension's status shows once it is installed); ok is false when there is no such
// bundle or its version cannot be read.
func (r *Resolver) BundleVersion(pkg, name string) (version string, ok bool) {
	p := r.packages[pkg]
	if p == nil {
		return "", false
	}
	for _, b := range p.bundles {
		if b.Name == name {
			vr, err := r.version(b)
			if err != nil {
				return "", false
			}
			return vr.legacyString(), true
		}
	}
	return "", false
}

// Resolve answers one query.
func (r *Resolver) Resolve(q Query) Answer {
	var constraint *mmsemver.Constraints
	if q.Version != "" {
		c, err := mmsemver.NewConstraint(q.Version)
		if err != nil {
			return Answer{Error: fmt.Sprintf("desired version range %q is invalid: %v", q.Version, err)}
		}
		constraint = c
	}
	p := r.packages[q.Package]
	if p == nil || p.blobs == 0 {
		return Answer{Error: noBundles(q)}
	}

	var predicates []func(*fbc.Bundle) bool
	channels := p.channels // the channels successors are looked for in
	if len(q.Channels) > 0 {
		channels = nil
		for _, ch := range p.channels {
			if slices.Contains(q.Channels, ch.Name) {
				channels = append(channels, ch)
			}
		}
	}
	entries := r.entriesOf(q.Package, q.Channels, channels)
	if len(q.Channels) > 0 {
		predicates = append(predicates, func(b *fbc.Bundle) bool { return len(entries[b.Name]) > 0 })
	}
	if constraint != nil {
		predicates = append(predicates, func(b *fbc.Bundle) bool {
			vr, err := r.version(b)
			return err == nil && constraint.Check(mastermindsVersion(vr.Version))
		})
	}
	var ans Answer
	if q.Policy != SelfCertified && q.Installed != nil {
		successor, err := r.successorsOf(*q.Installed, entries)
		if err != nil {
			return Answer{Error: "error walking catalogs: error finding upgrade edges: " + err.Error()}
		}
		ans.Successors = []string{}
		isSuccessor := map[*fbc.Bundle]bool{} // each bundle judged once
		for _, b := range p.bundles {
			if successor(b) {
				isSuccessor[b] = true
				ans.Successors = append(ans.Successors, b.Name)
			}
		}
		predicates = append(predicates, func(b *fbc.Bundle) bool { return isSuccessor[b] })
	}

	var candidates []*fbc.Bundle
	for _, b := range p.bundles {
		if allOf(predicates, b) {
			candidates = append(candidates, b)
		}
	}
	if len(candidates) == 0 {
		ans.Error = noBundles(q)
		return ans
	}
	deprecated := map[string]bool{}
	if p.deprecation != nil {
		for _, e := range p.deprecation.Entries {
			if e.Reference.Schema == fbc.SchemaBundle {
				deprecated[e.Reference.Name] = true
			}
		}
	}
	slices.SortStableFunc(candidates, func(a, b *fbc.Bundle) int {
		if da, db := deprecated[a.Name], deprecated[b.Name]; da != db {
			if da {
				return 1
			}
			return -1
		}
		va, errA := r.version(a)
		vb, errB := r.version(b)
		if errA != nil || errB != nil { // unreadable versions last
			switch {
			case errA != nil && errB == nil:
				return 1
			case errA == nil && errB != nil:
				return -1
			}
			return 0
		}
		return vb.compare(va)
	})
	pick := candidates[0]
	vr, err := r.version(pick)
	if err != nil {
		ans.Error = fmt.Sprintf("error getting resolved bundle version for bundle %q: %v", pick.Name, err)
		return ans
	}
	if err := noDependencies(pick); err != nil {
		ans.Error = fmt.Sprintf("validating bundle %q: %v", pick.Name, err)
		ans.PickedBeforeValidation = pick.Name
		return ans
	}
	ans.Bundle = pick.Name
	ans.BundleVersion = vr.legacyString()
	return ans
}

func allOf(predicates []func(*fbc.Bundle) bool, b *fbc.Bundle) bool {
	for _, p := range predicates {
		if !p(b) {
			return false
		}
	}
	return true
}

// entriesOf indexes the entries of channels (those asked of the package, all when none is) by
// bundle name, in channel order; made once per package and channels asked, since olmcat validate
// asks one query per channel entry of a package.
func (r *Resolver) entriesOf(pkg string, asked []string, channels []*fbc.Channel) map[string][]*fbc.ChannelEntry {
	key := pkg + "\x00" + strings.Join(asked, "\x00")
	if len(asked) == 0 {
		key = pkg + "\x01"
	}
	if idx, ok := r.entryIndex[key]; ok {
		return idx
	}
	idx := map[string][]*fbc.ChannelEntry{}
	for _, ch := range channels {
		for i := range ch.Entries {
			idx[ch.Entries[i].Name] = append(idx[ch.Entries[i].Name], &ch.Entries[i])
		}
	}
	if r.entryIndex == nil {
		r.entryIndex = map[string]map[string][]*fbc.ChannelEntry{}
	}
	r.entryIndex[key] = idx
	return idx
}

// mastermindsVersion is the version as operator-controller hands it to a Masterminds constraint.
func mastermindsVersion(v bsemver.Version) *mmsemver.Version {
	pre := make([]string, len(v.Pre))
	for i, p := range v.Pre {
		pre[i] = p.String()
	}
	return mmsemver.New(v.Major, v.Minor, v.Patch, strings.Join(pre, "."), strings.Join(v.Build, "."))
}

// successorsOf is the CatalogProvided filter: the bundles with an entry in channels that replaces,
// skips or skipRange-covers the installed bundle, or of the installed bundle's version.
func (r *Resolver) successorsOf(inst Installed, byName map[string][]*fbc.ChannelEntry) (func(*fbc.Bundle) bool, error) {
	instVR, err := parseLegacyVersion(inst.Version)
	if err != nil {
		return nil, fmt.Errorf("failed to get version and release of installed bundle: %w", err)
	}
	instV, err := bsemver.Parse(inst.Version)
	if err != nil {
		return nil, fmt.Errorf("getting successorsPredicate: error parsing installed bundle version: %w", err)
	}
	ranges := r.skipRanges
	isSuccessor := func(e *fbc.ChannelEntry) bool {
		if e.Replaces == inst.Name || slices.Contains(e.Skips, inst.Name) {
			return true
		}
		if e.SkipRange == "" {
			return false
		}
		rng, seen := ranges[e.SkipRange]
		if !seen {
			rng, _ = bsemver.ParseRange(e.SkipRange) // as OLM v0 read it; a bad range covers nothing
			ranges[e.SkipRange] = rng
		}
		return rng != nil && rng(instV)
	}
	return func(b *fbc.Bundle) bool {
		for _, e := range byName[b.Name] {
			if isSuccessor(e) {
				return true
			}
		}
		vr, err := r.version(b)
		return err == nil && instVR.compare(vr) == 0
	}, nil
}

// noDependencies is operator-controller's NoDependencyValidation.
func noDependencies(b *fbc.Bundle) error {
	for _, p := range b.Properties {
		switch p.Type {
		case "olm.package.required", "olm.gvk.required", "olm.constraint":
			return fmt.Errorf("bundle %q has a dependency declared via property %q which is currently not supported", b.Name, p.Type)
		}
	}
	return nil
}

// noBundles is operator-controller's resolutionError for a single catalog with no candidate.
func noBundles(q Query) string {
	var sb strings.Builder
	if q.Installed != nil {
		fmt.Fprintf(&sb, "error upgrading from currently installed version %q: ", q.Installed.Version)
	}
	fmt.Fprintf(&sb, "no bundles found for package %q ", q.Package)
	if q.Version != "" {
		fmt.Fprintf(&sb, "matching version %q ", q.Version)
	}
	if len(q.Channels) > 0 {
		fmt.Fprintf(&sb, "in channels %v ", q.Channels)
	}
	return strings.TrimSpace(sb.String())
}
