package ops

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
)

// NewBundle is a bundle to add to a catalog: its rendered blob plus what its annotations and CSV
// say about channels and the upgrade graph.
type NewBundle struct {
	Blob           fbc.Bundle
	Channels       []string  // from the channels annotation
	DefaultChannel string    // from the default-channel annotation
	Replaces       string    // the CSV's spec.replaces
	Skips          []string  // the CSV's spec.skips
	SkipRange      string    // the CSV's olm.skipRange annotation
	Icon           *fbc.Icon // the CSV's first icon
	Source         string    // where the bundle came from, for messages
}

// FromBundleDir makes a NewBundle of a parsed bundle directory rendered with the given image.
func FromBundleDir(b *bundledir.Bundle, image string) (NewBundle, error) {
	blob, err := b.Render(image)
	if err != nil {
		return NewBundle{}, err
	}
	return NewBundle{
		Blob: blob, Channels: b.Annotations.Channels(), DefaultChannel: b.Annotations.DefaultChannel(),
		Replaces: b.CSV.Replaces, Skips: b.CSV.Skips, SkipRange: b.CSV.SkipRange,
		Icon: b.CSV.Icon, Source: b.Dir,
	}, nil
}

// AddOptions control Add.
type AddOptions struct {
	Mode Mode
	// Channels, when set, replace the channels the bundles' annotations name.
	Channels []string
	// DefaultChannel, when set, becomes the package's default channel whatever the versions.
	DefaultChannel string
}

// Add inserts bundles, in the order given, into the channels their annotations name (or
// opts.Channels), creating the package and channels that do not exist yet.
//
// In replaces mode the new bundle replaces the channel head (the one entry nobody replaces or
// skips) and keeps its CSV's skips and skipRange, so adding v1, v2, v3 gives the chain
// v1 <- v2 <- v3. In semver modes the channel is rebuilt from the versions, which places the new
// bundle anywhere in the graph.
//
// The package's default channel follows the annotation of the bundle with the highest version
// only (a bundle older than the package's newest does not change it); opts.DefaultChannel
// overrides. When the new bundle heads the default channel, the package's icon is taken from its
// CSV; like opm, the package description is left alone. The notes describe what was done.
func Add(c *fbc.Catalog, bundles []NewBundle, opts AddOptions) (notes []string, err error) {
	if opts.Mode == "" {
		opts.Mode = ModeReplaces
	}
	work := clone(c)
	var touched []string
	for _, nb := range bundles {
		n, err := addOne(work, nb, opts)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
		if !slices.Contains(touched, nb.Blob.Package) {
			touched = append(touched, nb.Blob.Package)
		}
	}
	if err := checkPackages(c, work, touched...); err != nil {
		return nil, err
	}
	*c = *work
	return notes, nil
}

func addOne(c *fbc.Catalog, nb NewBundle, opts AddOptions) (notes []string, err error) {
	b := nb.Blob
	where := fmt.Sprintf("bundle %q", b.Name)
	if nb.Source != "" {
		where += " (" + nb.Source + ")"
	}
	if b.Name == "" || b.Package == "" {
		return nil, fmt.Errorf("%s: a bundle needs a name and a package", where)
	}
	if findBundle(c, b.Package, b.Name) >= 0 {
		return nil, fmt.Errorf("%s: package %q already has a bundle of that name; remove it first (olmcat rm) to replace it", where, b.Package)
	}
	channels := nb.Channels
	if len(opts.Channels) > 0 {
		channels = opts.Channels
	}
	if len(channels) == 0 {
		return nil, fmt.Errorf("%s names no channel: set the channels annotation or pass --channel", where)
	}
	if findPackage(c, b.Package) < 0 {
		def := firstNonEmpty(opts.DefaultChannel, nb.DefaultChannel)
		if def == "" && len(channels) == 1 {
			def = channels[0]
		}
		if def == "" {
			return nil, fmt.Errorf("%s creates package %q but names no default channel: set the default-channel annotation or pass --default-channel", where, b.Package)
		}
		c.Packages = append(c.Packages, fbc.Package{Schema: fbc.SchemaPackage, Name: b.Package, DefaultChannel: def, Icon: nb.Icon})
		notes = append(notes, fmt.Sprintf("created package %q (default channel %q)", b.Package, def))
	}
	c.Bundles = append(c.Bundles, b)
	for _, chName := range channels {
		n, err := addToChannel(c, nb, chName, opts.Mode)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		notes = append(notes, n)
	}
	n, err := updateDefaultChannel(c, nb, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	notes = append(notes, n...)
	refreshPackageLook(c, nb)
	return notes, nil
}

func addToChannel(c *fbc.Catalog, nb NewBundle, chName string, mode Mode) (string, error) {
	b := nb.Blob
	entry := fbc.ChannelEntry{Name: b.Name, SkipRange: nb.SkipRange}
	ci := findChannel(c, b.Package, chName)
	if ci < 0 {
		if mode == ModeReplaces {
			entry.Skips = slices.Clone(nb.Skips)
		}
		c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: chName, Package: b.Package,
			Entries: []fbc.ChannelEntry{entry}})
		return fmt.Sprintf("created channel %q of package %q with %q", chName, b.Package, b.Name), nil
	}
	ch := &c.Channels[ci]
	nameOrder := slices.IsSortedFunc(ch.Entries, byName)
	if mode.IsSemver() {
		ch.Entries = append(ch.Entries, entry)
		if err := rebuildChannel(c, b.Package, chName, mode); err != nil {
			return "", err
		}
		if nameOrder {
			slices.SortFunc(ch.Entries, byName)
		}
		e := ch.Entries[findEntry(ch, b.Name)]
		return fmt.Sprintf("added %q to channel %q by version (%s): replaces %q", b.Name, chName, mode, e.Replaces), nil
	}
	hs := heads(ch)
	if len(hs) != 1 {
		return "", fmt.Errorf("channel %q of package %q has %d heads %q: cannot tell which one the new bundle replaces; fix the channel first (see olmcat validate) or use a semver mode",
			chName, b.Package, len(hs), hs)
	}
	head := hs[0]
	entry.Replaces = head
	entry.Skips = slices.Clone(nb.Skips)
	ch.Entries = append(ch.Entries, entry)
	if nameOrder {
		slices.SortFunc(ch.Entries, byName)
	}
	note := fmt.Sprintf("added %q to channel %q: replaces head %q", b.Name, chName, head)
	if nb.Replaces != "" && nb.Replaces != head {
		note += fmt.Sprintf(" (its CSV says replaces %q; the channel's head wins)", nb.Replaces)
	}
	if older, headVersion := olderThan(c, b, head); older {
		note += fmt.Sprintf(" (warning: its version is lower than the head's %s)", headVersion)
	}
	return note, nil
}

// byName orders entries as opm writes them. A channel whose entries are in that order keeps it
// when an entry is added; any other order (a hand-written one) is kept and the entry appended.
func byName(a, b fbc.ChannelEntry) int { return strings.Compare(a.Name, b.Name) }

// heads returns the entries no other entry of the channel replaces or skips, sorted.
func heads(ch *fbc.Channel) []string {
	incoming := map[string]bool{}
	for _, e := range ch.Entries {
		incoming[e.Replaces] = true
		for _, s := range e.Skips {
			incoming[s] = true
		}
	}
	var out []string
	for _, e := range ch.Entries {
		if !incoming[e.Name] && !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	sort.Strings(out)
	return out
}

// olderThan reports whether the bundle's version is lower than that of bundle other.
func olderThan(c *fbc.Catalog, b fbc.Bundle, other string) (bool, string) {
	oi := findBundle(c, b.Package, other)
	if oi < 0 {
		return false, ""
	}
	v, err1 := bundleSemver(&b, ModeSemver)
	ov, err2 := bundleSemver(&c.Bundles[oi], ModeSemver)
	if err1 != nil || err2 != nil {
		return false, ""
	}
	return compareVersions(v, ov) < 0, ov.String()
}

// updateDefaultChannel applies the design's rule: only the newest bundle of a package decides the
// default channel.
func updateDefaultChannel(c *fbc.Catalog, nb NewBundle, opts AddOptions) ([]string, error) {
	pi := findPackage(c, nb.Blob.Package)
	pkg := &c.Packages[pi]
	want := opts.DefaultChannel
	if want == "" && nb.DefaultChannel != "" && isNewest(c, nb.Blob) {
		want = nb.DefaultChannel
	}
	if want == "" || want == pkg.DefaultChannel {
		return nil, nil
	}
	if findChannel(c, pkg.Name, want) < 0 {
		return nil, fmt.Errorf("default channel %q does not exist in package %q (channels: %s): add the bundle to it or pass --default-channel",
			want, pkg.Name, strings.Join(channelNames(c, pkg.Name), ", "))
	}
	old := pkg.DefaultChannel
	pkg.DefaultChannel = want
	return []string{fmt.Sprintf("package %q default channel: %q -> %q", pkg.Name, old, want)}, nil
}

// isNewest reports whether b has the highest version of its package (versions that are not semver
// are never newest and never stop another bundle from being newest).
func isNewest(c *fbc.Catalog, b fbc.Bundle) bool {
	v, err := bundleSemver(&b, ModeSemver)
	if err != nil {
		return false
	}
	for i := range c.Bundles {
		o := &c.Bundles[i]
		if o.Package != b.Package || o.Name == b.Name {
			continue
		}
		if ov, err := bundleSemver(o, ModeSemver); err == nil && compareVersions(ov, v) >= 0 {
			return false
		}
	}
	return true
}

// refreshPackageLook takes the package's icon from the new bundle when it heads the default
// channel, as a catalog built by opm shows it.
func refreshPackageLook(c *fbc.Catalog, nb NewBundle) {
	pkg := &c.Packages[findPackage(c, nb.Blob.Package)]
	ci := findChannel(c, pkg.Name, pkg.DefaultChannel)
	if ci < 0 {
		return
	}
	if hs := heads(&c.Channels[ci]); len(hs) != 1 || hs[0] != nb.Blob.Name {
		return
	}
	if nb.Icon != nil {
		pkg.Icon = nb.Icon
	}
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
