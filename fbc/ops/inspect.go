package ops

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc/model"
)

// PackageSummary is one line of `inspect packages`.
type PackageSummary struct {
	Name           string   `json:"name"`
	Channels       []string `json:"channels"`
	DefaultChannel string   `json:"defaultChannel"`
	Deprecation    string   `json:"deprecation,omitempty"`
}

// PackagesReport is `inspect packages`.
type PackagesReport struct {
	Packages []PackageSummary `json:"packages"`
}

// PackageReport is `inspect package P`: every channel with its bundles and their upgrade edges.
type PackageReport struct {
	Name           string          `json:"name"`
	DefaultChannel string          `json:"defaultChannel"`
	Deprecation    string          `json:"deprecation,omitempty"`
	Channels       []ChannelReport `json:"channels"`
}

// ChannelReport lists a channel's bundles, oldest version first.
type ChannelReport struct {
	Name        string         `json:"name"`
	Head        string         `json:"head,omitempty"`
	Deprecation string         `json:"deprecation,omitempty"`
	Bundles     []BundleReport `json:"bundles"`
}

// BundleReport describes one channel entry. Replaces are the bundles it upgrades from, directly
// (replaces or skips) or by its skipRange; Replacements are the entries that upgrade from it. Both
// are null when empty, as in the design's example.
type BundleReport struct {
	Version      string    `json:"version"`
	CSV          string    `json:"csv"`
	BundlePath   string    `json:"bundlePath"`
	Replaces     []EdgeRef `json:"replaces"`
	Replacements []EdgeRef `json:"replacements"`
	Deprecation  string    `json:"deprecation,omitempty"`
}

// EdgeRef is the other end of an upgrade edge and how the edge is made: "replaces", "skips",
// "skipRange" (several when more than one applies).
type EdgeRef struct {
	Version string   `json:"version"`
	CSV     string   `json:"csv"`
	Via     []string `json:"via"`
}

// InspectPackages summarizes every package, sorted by name.
func InspectPackages(m *model.Model) PackagesReport {
	r := PackagesReport{Packages: []PackageSummary{}}
	for _, p := range m.SortedPackages() {
		s := PackageSummary{Name: p.Name, DefaultChannel: p.DefaultChannel, Channels: []string{}, Deprecation: message(p.Deprecation)}
		for _, ch := range p.SortedChannels() {
			s.Channels = append(s.Channels, ch.Name)
		}
		r.Packages = append(r.Packages, s)
	}
	return r
}

// InspectPackage describes one package.
func InspectPackage(m *model.Model, name string) (*PackageReport, error) {
	p, ok := m.Packages[name]
	if !ok {
		names := make([]string, 0, len(m.Packages))
		for n := range m.Packages {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no package %q in the catalog (packages: %s)", name, strings.Join(names, ", "))
	}
	r := &PackageReport{Name: p.Name, DefaultChannel: p.DefaultChannel, Deprecation: message(p.Deprecation), Channels: []ChannelReport{}}
	for _, ch := range p.SortedChannels() {
		r.Channels = append(r.Channels, inspectChannel(p, ch))
	}
	return r, nil
}

func message(d *model.Deprecation) string {
	if d == nil {
		return ""
	}
	return d.Message
}

type edgeKey struct{ from, to string }

func inspectChannel(p *model.Package, ch *model.Channel) ChannelReport {
	cr := ChannelReport{Name: ch.Name, Deprecation: message(ch.Deprecation), Bundles: []BundleReport{}}
	if hs := ch.Heads(); len(hs) == 1 {
		cr.Head = hs[0]
	}
	via := map[edgeKey][]string{} // from (older) -> to (newer)
	addEdge := func(from, to, how string) {
		if from == to {
			return
		}
		k := edgeKey{from, to}
		if !slices.Contains(via[k], how) {
			via[k] = append(via[k], how)
		}
	}
	for _, e := range ch.SortedEntries() {
		if e.Replaces != "" {
			addEdge(e.Replaces, e.Name, "replaces")
		}
		for _, s := range e.Skips {
			addEdge(s, e.Name, "skips")
		}
		if e.SkipRange == "" {
			continue
		}
		inRange, err := semver.ParseRange(e.SkipRange)
		if err != nil {
			continue
		}
		for _, other := range ch.SortedEntries() {
			if v := model.EntryVersion(other); v != nil && inRange(*v) {
				addEdge(other.Name, e.Name, "skipRange")
			}
		}
	}
	ref := func(name string, how []string) EdgeRef {
		r := EdgeRef{CSV: name, Via: how}
		if b, ok := p.Bundles[name]; ok {
			r.Version = b.VersionString
		}
		return r
	}
	for _, e := range entriesByVersion(ch) {
		br := BundleReport{CSV: e.Name}
		if e.Bundle != nil {
			br.Version, br.BundlePath, br.Deprecation = e.Bundle.VersionString, e.Bundle.Image, message(e.Bundle.Deprecation)
		}
		for k, how := range via {
			switch e.Name {
			case k.to:
				br.Replaces = append(br.Replaces, ref(k.from, how))
			case k.from:
				br.Replacements = append(br.Replacements, ref(k.to, how))
			}
		}
		sortEdges(p, br.Replaces)
		sortEdges(p, br.Replacements)
		cr.Bundles = append(cr.Bundles, br)
	}
	return cr
}

// entriesByVersion orders a channel's entries by version, oldest first; entries without a usable
// version come last, by name.
func entriesByVersion(ch *model.Channel) []*model.Entry {
	entries := ch.SortedEntries()
	slices.SortStableFunc(entries, func(a, b *model.Entry) int {
		va, vb := model.EntryVersion(a), model.EntryVersion(b)
		switch {
		case va == nil && vb == nil:
			return 0
		case va == nil:
			return 1
		case vb == nil:
			return -1
		}
		return compareVersions(*va, *vb)
	})
	return entries
}

func sortEdges(p *model.Package, edges []EdgeRef) {
	version := func(name string) *semver.Version {
		if b, ok := p.Bundles[name]; ok && b.VersionErr == nil {
			return &b.Version
		}
		return nil
	}
	slices.SortFunc(edges, func(a, b EdgeRef) int {
		va, vb := version(a.CSV), version(b.CSV)
		if va != nil && vb != nil {
			if c := compareVersions(*va, *vb); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.CSV, b.CSV)
	})
}
