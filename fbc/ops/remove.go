package ops

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// RemoveOptions control RemoveBundles.
type RemoveOptions struct {
	// Package limits bundle lookup to one package (needed when a name is in several).
	Package string
	// Mode says how a channel is stitched back together: replaces (the default) hands the removed
	// entry's replaces and skips to the entries that replaced it; semver modes re-derive the
	// channel from the remaining versions.
	Mode Mode
	// AllowEmpty lets a removal empty a channel, which is then removed (and the package with it
	// when it has no channel left). Without it, emptying a channel is refused.
	AllowEmpty bool
}

// RemoveBundles removes bundles, named by bundle name or by image, from every channel of their
// package and from the catalog, and reconnects each channel's graph. A removal that would leave a
// channel without exactly one head, empty a channel (without AllowEmpty), or remove the package's
// default channel while other channels remain is refused, and the catalog is left as it was.
func RemoveBundles(c *fbc.Catalog, refs []string, opts RemoveOptions) (notes []string, err error) {
	if opts.Mode == "" {
		opts.Mode = ModeReplaces
	}
	work := clone(c)
	var touched []string
	for _, ref := range refs {
		pkg, name, err := resolveBundle(work, ref, opts.Package)
		if err != nil {
			return nil, err
		}
		n, err := removeBundle(work, pkg, name, opts)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
		if !slices.Contains(touched, pkg) && findPackage(work, pkg) >= 0 {
			touched = append(touched, pkg)
		}
	}
	if err := checkPackages(c, work, touched...); err != nil {
		return nil, err
	}
	*c = *work
	return notes, nil
}

// resolveBundle finds the one bundle with this name or image.
func resolveBundle(c *fbc.Catalog, ref, pkg string) (string, string, error) {
	var found []fbc.Bundle
	for _, b := range c.Bundles {
		if (pkg == "" || b.Package == pkg) && (b.Name == ref || (b.Image != "" && b.Image == ref)) {
			found = append(found, b)
		}
	}
	switch {
	case len(found) == 0 && pkg != "":
		return "", "", fmt.Errorf("package %q has no bundle named %q or with that image", pkg, ref)
	case len(found) == 0:
		return "", "", fmt.Errorf("no bundle named %q or with that image in the catalog", ref)
	case len(found) > 1:
		var where []string
		for _, b := range found {
			where = append(where, fmt.Sprintf("%s in package %s", b.Name, b.Package))
		}
		return "", "", fmt.Errorf("%q matches %d bundles (%s): name the package with --package, or use the bundle name", ref, len(found), strings.Join(where, ", "))
	}
	return found[0].Package, found[0].Name, nil
}

func removeBundle(c *fbc.Catalog, pkg, name string, opts RemoveOptions) (notes []string, err error) {
	where := fmt.Sprintf("removing bundle %q of package %q", name, pkg)
	var emptied []string
	for ci := range c.Channels {
		ch := &c.Channels[ci]
		if ch.Package != pkg {
			continue
		}
		ei := findEntry(ch, name)
		if ei < 0 {
			continue
		}
		removed := ch.Entries[ei]
		ch.Entries = slices.Delete(ch.Entries, ei, ei+1)
		switch {
		case len(ch.Entries) == 0:
			emptied = append(emptied, ch.Name)
			continue
		case opts.Mode.IsSemver():
			if err := rebuildChannel(c, pkg, ch.Name, opts.Mode); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
		default:
			stitch(ch, removed)
		}
		if hs := heads(ch); len(hs) != 1 {
			return nil, fmt.Errorf("%s would leave channel %q with %d heads %q: an upgrade graph needs exactly one; add an entry that replaces or skips them, or remove them too",
				where, ch.Name, len(hs), hs)
		}
		notes = append(notes, fmt.Sprintf("removed %q from channel %q of package %q", name, ch.Name, pkg))
	}
	if len(emptied) > 0 {
		n, err := dropEmptiedChannels(c, pkg, emptied, opts.AllowEmpty, where)
		if err != nil {
			return nil, err
		}
		notes = append(notes, n...)
	}
	if bi := findBundle(c, pkg, name); bi >= 0 {
		c.Bundles = slices.Delete(c.Bundles, bi, bi+1)
	}
	notes = append(notes, dropDeprecations(c, pkg, fbc.SchemaBundle, name)...)
	return notes, nil
}

// stitch reconnects a replaces-mode channel after removing one entry: whatever replaced it now
// replaces what it replaced, and also skips what it skipped.
func stitch(ch *fbc.Channel, removed fbc.ChannelEntry) {
	for i := range ch.Entries {
		e := &ch.Entries[i]
		if e.Replaces != removed.Name {
			continue
		}
		e.Replaces = removed.Replaces
		if e.Replaces == e.Name {
			e.Replaces = ""
		}
		for _, s := range removed.Skips {
			if s != e.Name && !slices.Contains(e.Skips, s) {
				e.Skips = append(e.Skips, s)
			}
		}
	}
}

func dropEmptiedChannels(c *fbc.Catalog, pkg string, emptied []string, allowEmpty bool, where string) ([]string, error) {
	sort.Strings(emptied)
	if !allowEmpty {
		return nil, fmt.Errorf("%s would leave channel(s) %s empty: pass --allow-empty to remove emptied channels too", where, strings.Join(emptied, ", "))
	}
	pi := findPackage(c, pkg)
	left := 0
	for _, ch := range c.Channels {
		if ch.Package == pkg && !slices.Contains(emptied, ch.Name) {
			left++
		}
	}
	if left == 0 {
		removePackageBlobs(c, pkg)
		return []string{fmt.Sprintf("removed package %q: it has no channel left", pkg)}, nil
	}
	if pi >= 0 && slices.Contains(emptied, c.Packages[pi].DefaultChannel) {
		return nil, fmt.Errorf("%s would empty channel %q, the default channel of package %q: make another channel the default first", where, c.Packages[pi].DefaultChannel, pkg)
	}
	var notes []string
	for _, name := range emptied {
		c.Channels = slices.DeleteFunc(c.Channels, func(ch fbc.Channel) bool { return ch.Package == pkg && ch.Name == name })
		notes = append(notes, fmt.Sprintf("removed channel %q of package %q: it became empty", name, pkg))
		notes = append(notes, dropDeprecations(c, pkg, fbc.SchemaChannel, name)...)
	}
	return notes, nil
}

// RemoveChannel removes a channel. Bundles that are in no other channel of the package are removed
// with it. The package's default channel cannot be removed while the package has other channels
// (make another one the default first); removing its only channel is removing the package.
func RemoveChannel(c *fbc.Catalog, pkg, channel string) (notes []string, err error) {
	if findPackage(c, pkg) < 0 {
		return nil, fmt.Errorf("no package %q in the catalog", pkg)
	}
	ci := findChannel(c, pkg, channel)
	if ci < 0 {
		return nil, fmt.Errorf("package %q has no channel %q (channels: %s)", pkg, channel, strings.Join(channelNames(c, pkg), ", "))
	}
	if def := c.Packages[findPackage(c, pkg)].DefaultChannel; def == channel {
		if len(channelNames(c, pkg)) == 1 {
			return nil, fmt.Errorf("channel %q is the only channel of package %q: remove the package instead (--package %s without --channel)", channel, pkg, pkg)
		}
		return nil, fmt.Errorf("channel %q is the default channel of package %q: make another channel the default first", channel, pkg)
	}
	work := clone(c)
	gone := work.Channels[ci]
	work.Channels = slices.Delete(work.Channels, ci, ci+1)
	notes = append(notes, fmt.Sprintf("removed channel %q of package %q", channel, pkg))
	notes = append(notes, dropDeprecations(work, pkg, fbc.SchemaChannel, channel)...)
	for _, e := range gone.Entries {
		stillUsed := slices.ContainsFunc(work.Channels, func(ch fbc.Channel) bool { return ch.Package == pkg && findEntry(&ch, e.Name) >= 0 })
		if bi := findBundle(work, pkg, e.Name); !stillUsed && bi >= 0 {
			work.Bundles = slices.Delete(work.Bundles, bi, bi+1)
			notes = append(notes, fmt.Sprintf("removed bundle %q: it was in no other channel", e.Name))
			notes = append(notes, dropDeprecations(work, pkg, fbc.SchemaBundle, e.Name)...)
		}
	}
	if err := checkPackages(c, work, pkg); err != nil {
		return nil, err
	}
	*c = *work
	return notes, nil
}

// RemovePackage removes a package and every blob that belongs to it.
func RemovePackage(c *fbc.Catalog, pkg string) error {
	if findPackage(c, pkg) < 0 {
		return fmt.Errorf("no package %q in the catalog", pkg)
	}
	removePackageBlobs(c, pkg)
	return nil
}

func removePackageBlobs(c *fbc.Catalog, pkg string) {
	c.Packages = slices.DeleteFunc(c.Packages, func(p fbc.Package) bool { return p.Name == pkg })
	c.Channels = slices.DeleteFunc(c.Channels, func(ch fbc.Channel) bool { return ch.Package == pkg })
	c.Bundles = slices.DeleteFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Package == pkg })
	c.Deprecations = slices.DeleteFunc(c.Deprecations, func(d fbc.Deprecation) bool { return d.Package == pkg })
	c.Others = slices.DeleteFunc(c.Others, func(m fbc.Meta) bool { return m.Package == pkg })
}

// dropDeprecations removes the deprecation entries about an object that no longer exists (they
// would make the catalog invalid), and olm.deprecations blobs left without entries.
func dropDeprecations(c *fbc.Catalog, pkg, schema, name string) []string {
	var notes []string
	emptied := map[int]bool{}
	for i := range c.Deprecations {
		d := &c.Deprecations[i]
		if d.Package != pkg {
			continue
		}
		before := len(d.Entries)
		d.Entries = slices.DeleteFunc(d.Entries, func(e fbc.DeprecationEntry) bool {
			return e.Reference.Schema == schema && e.Reference.Name == name
		})
		if len(d.Entries) < before {
			notes = append(notes, fmt.Sprintf("dropped the deprecation of %s %q", strings.TrimPrefix(schema, "olm."), name))
			emptied[i] = len(d.Entries) == 0
		}
	}
	kept := c.Deprecations[:0]
	for i, d := range c.Deprecations {
		if !emptied[i] {
			kept = append(kept, d)
		}
	}
	c.Deprecations = kept
	return notes
}
