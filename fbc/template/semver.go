package template

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// The channel archetypes of a semver template, least stable first.
var archetypes = []string{"candidate", "fast", "stable"}

func archetypeRank(a string) int { return slices.Index(archetypes, a) }

func kindRank(kind string) int {
	switch kind {
	case kindMinor:
		return 2
	case kindMajor:
		return 1
	}
	return 0
}

// renderSemver generates channels from the bundles' versions as opm's semver template does:
// per archetype, a channel per major version (<archetype>-vX) and/or per minor version
// (<archetype>-vX.Y); in each minor version only the highest bundle has edges: it replaces the
// highest bundle of the previous minor version and skips every other bundle since the major version
// began. The default channel is the "high-water" channel: most stable archetype, then the highest
// first version, then the preferred kind.
func renderSemver(ctx context.Context, t *Semver, src *bundleSource, loc locator) (*fbc.Catalog, error) {
	byArchetype := [][]string{t.Candidate, t.Fast, t.Stable}
	var refs []string
	for _, images := range byArchetype {
		refs = append(refs, images...)
	}
	src.parseProperties = true
	if err := src.render(ctx, refs); err != nil {
		return nil, err
	}
	// A bundle is located at its entry in its archetype's list (the first one for the bundle
	// itself); a generated channel at the entry of the bundle that created it.
	entryLocs := make([]map[string]fbc.Location, len(archetypes))
	out := &fbc.Catalog{}
	seen := map[string]bool{}
	for i, images := range byArchetype {
		entryLocs[i] = map[string]fbc.Location{}
		for j, ref := range images {
			b := src.get(ref).bundle
			b.Loc = loc.at(at(loc.lines.Bundles[i], j))
			if _, ok := entryLocs[i][b.Name]; !ok {
				entryLocs[i][b.Name] = b.Loc
			}
			if !seen[ref] {
				seen[ref] = true
				out.Bundles = append(out.Bundles, b)
			}
		}
	}
	if len(out.Bundles) == 0 {
		return nil, errors.New("render: no bundles specified or no bundles could be rendered")
	}
	g := &semverGenerator{t: t, channels: map[string]*fbc.Channel{}, entryLocs: entryLocs}
	versions := make([]map[string]semver.Version, len(archetypes))
	for i, images := range byArchetype {
		v, err := g.versions(images, src)
		if err != nil {
			return nil, fmt.Errorf("render: unable to post-process bundle info: %v", err)
		}
		versions[i] = v
	}
	out.Packages = []fbc.Package{{Schema: fbc.SchemaPackage, Name: g.pkg, Loc: loc.at(loc.lines.Document)}}
	out.Channels = g.generate(versions)
	pkg := &out.Packages[0]
	pkg.DefaultChannel = g.defaultChannel
	if ch := g.channels[g.defaultChannel]; ch != nil && len(ch.Entries) > 0 {
		head := ch.Entries[len(ch.Entries)-1].Name
		switch rb := g.heads[head]; {
		case rb.csv != nil:
			pkg.Icon = csvIcon(rb.csv)
			pkg.Description = csvDescription(rb.csv)
		case rb.meta != nil:
			// A bundle taken from a catalog in olm.csv.metadata form: the description is in its
			// metadata, the icon in the catalog's olm.package blob, which the renderer knows.
			pkg.Description = rb.meta.Description
			if icons, ok := src.renderer.(PackageIconer); ok {
				pkg.Icon, _ = icons.PackageIcon(g.pkg)
			}
		}
	}
	return out, nil
}

type semverGenerator struct {
	t              *Semver
	pkg            string
	defaultChannel string
	channels       map[string]*fbc.Channel
	heads          map[string]renderedBundle // by bundle name
	entryLocs      []map[string]fbc.Location // per archetype, by bundle name
}

// versions reads the package version of each bundle of one archetype.
func (g *semverGenerator) versions(images []string, src *bundleSource) (map[string]semver.Version, error) {
	out := map[string]semver.Version{}
	imageOf := map[string]string{}
	var order []string
	for _, ref := range images {
		rb := src.get(ref)
		b := rb.bundle
		props, err := rb.props, rb.propsErr
		if props == nil && err == nil {
			props, err = property.Parse(b.Properties)
		}
		if err != nil {
			return nil, fmt.Errorf("parse properties for bundle %q: %v", b.Name, err)
		}
		if len(props.Packages) != 1 {
			return nil, fmt.Errorf("bundle %q has multiple %q properties, expected exactly 1", b.Name, property.TypePackage)
		}
		v, err := semver.Parse(props.Packages[0].Version)
		if err != nil {
			return nil, fmt.Errorf("bundle %q has invalid version %q: %v", b.Name, props.Packages[0].Version, err)
		}
		if g.pkg == "" {
			g.pkg = props.Packages[0].PackageName
		} else if props.Packages[0].PackageName != g.pkg {
			return nil, fmt.Errorf("bundle %q does not belong to this package: %q", props.Packages[0].PackageName, g.pkg)
		}
		if _, dup := out[b.Name]; dup {
			if first := imageOf[b.Name]; first != ref {
				return nil, fmt.Errorf("duplicate bundle name %q: images %s and %s are both bundle %q; keep one", b.Name, first, ref, b.Name)
			}
			return nil, fmt.Errorf("duplicate bundle name %q: image %s is listed twice; keep one", b.Name, ref)
		}
		out[b.Name] = v
		imageOf[b.Name] = ref
		order = append(order, b.Name)
		if g.heads == nil {
			g.heads = map[string]renderedBundle{}
		}
		g.heads[b.Name] = rb
	}
	// Versions that differ only by build metadata cannot be ordered.
	var conflicts []string
	stripped := map[string]bool{}
	for _, name := range order {
		v := out[name]
		s := v
		s.Build = nil
		if stripped[s.String()] {
			conflicts = append(conflicts, fmt.Sprintf("bundle version %q cannot be compared to %q", v.String(), s.String()))
		}
		stripped[s.String()] = true
	}
	switch len(conflicts) {
	case 0:
		return out, nil
	case 1:
		return nil, fmt.Errorf("encountered bundle versions which differ only by build metadata, which cannot be ordered: %s", conflicts[0])
	}
	return nil, fmt.Errorf("encountered bundle versions which differ only by build metadata, which cannot be ordered: [%s]", strings.Join(conflicts, ", "))
}

// highWater is a candidate for the default channel.
type highWater struct {
	archetype string
	kind      string
	version   semver.Version
	name      string
}

func (h highWater) beats(o highWater, preferred string) bool {
	if a, b := archetypeRank(h.archetype), archetypeRank(o.archetype); a != b {
		return a > b
	}
	if !h.version.EQ(o.version) {
		return h.version.GT(o.version)
	}
	if h.kind != o.kind {
		switch preferred {
		case h.kind:
			return true
		case o.kind:
			return false
		}
		return kindRank(h.kind) > kindRank(o.kind)
	}
	return false
}

// semverEntry is a channel entry with what linking it needs.
type semverEntry struct {
	archetype string
	kind      string
	channel   string
	name      string
	version   semver.Version
	index     int // in its channel's entries
}

func (g *semverGenerator) generate(versions []map[string]semver.Version) []fbc.Channel {
	hw := highWater{archetype: archetypes[0]}
	var entries []semverEntry
	for i, archetype := range archetypes {
		bundles := versions[i]
		if len(bundles) == 0 {
			continue
		}
		names := make([]string, 0, len(bundles))
		for name := range bundles {
			names = append(names, name)
		}
		slices.SortFunc(names, func(a, b string) int { return bundles[a].Compare(bundles[b]) })
		for _, name := range names {
			v := bundles[name]
			var kinds []string
			if g.t.GenerateMajorChannels {
				kinds = append(kinds, kindMajor)
			}
			if g.t.GenerateMinorChannels {
				kinds = append(kinds, kindMinor)
			}
			for _, kind := range kinds {
				chName := fmt.Sprintf("%s-v%d", archetype, v.Major)
				if kind == kindMinor {
					chName = fmt.Sprintf("%s-v%d.%d", archetype, v.Major, v.Minor)
				}
				ch, ok := g.channels[chName]
				if !ok {
					ch = &fbc.Channel{Schema: fbc.SchemaChannel, Name: chName, Package: g.pkg, Entries: []fbc.ChannelEntry{}, Loc: g.entryLocs[i][name]}
					g.channels[chName] = ch
					if c := (highWater{archetype: archetype, kind: kind, version: v, name: chName}); c.beats(hw, g.t.DefaultChannelTypePreference) {
						hw = c
					}
				}
				ch.Entries = append(ch.Entries, fbc.ChannelEntry{Name: name})
				entries = append(entries, semverEntry{archetype: archetype, kind: kind, channel: chName, name: name, version: v, index: len(ch.Entries) - 1})
			}
		}
	}
	g.defaultChannel = hw.name
	g.link(entries)
	out := make([]fbc.Channel, 0, len(g.channels))
	for _, ch := range g.channels {
		out = append(out, *ch)
	}
	slices.SortFunc(out, func(a, b fbc.Channel) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// link gives the highest bundle of each minor version its edges: replaces the highest bundle of
// the previous minor version, skips every earlier bundle since the last change of archetype, kind
// or major version. Walking archetype by archetype and kind by kind (major before minor) in
// version order, as opm does, means a minor channel's head replaces and skips bundles of other
// minor channels.
func (g *semverGenerator) link(entries []semverEntry) {
	slices.SortFunc(entries, func(a, b semverEntry) int {
		if c := cmp.Compare(archetypeRank(a.archetype), archetypeRank(b.archetype)); c != 0 {
			return c
		}
		if c := cmp.Compare(kindRank(a.kind), kindRank(b.kind)); c != 0 {
			return c
		}
		return a.version.Compare(b.version)
	})
	setEdges := func(e semverEntry, replaces string, skips map[string]bool) {
		entry := &g.channels[e.channel].Entries[e.index]
		entry.Replaces = replaces
		var list []string
		for s := range skips {
			if s != replaces {
				list = append(list, s)
			}
		}
		slices.Sort(list)
		if len(list) > 0 {
			entry.Skips = list
		}
	}
	prevMinorHead := ""
	skips := map[string]bool{}
	for i := 1; i < len(entries); i++ {
		prev, cur := entries[i-1], entries[i]
		groupChange := cur.archetype != prev.archetype || cur.kind != prev.kind || cur.version.Major != prev.version.Major
		minorChange := cur.version.Minor != prev.version.Minor
		if groupChange || minorChange {
			setEdges(prev, prevMinorHead, skips)
		}
		if groupChange {
			skips = map[string]bool{}
			prevMinorHead = ""
			continue
		}
		if minorChange {
			prevMinorHead = prev.name
		}
		skips[prev.name] = true
	}
	if n := len(entries); n > 1 {
		last, before := entries[n-1], entries[n-2]
		if last.archetype == before.archetype && last.kind == before.kind && last.version.Major == before.version.Major {
			setEdges(last, prevMinorHead, skips)
		}
	}
}
