package ops

import (
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
)

// RebuildChannel recomputes the entries of one channel with the given mode:
//   - semver: every bundle replaces the next lower version; skips are dropped (the design ignores
//     them in this mode); skipRanges are kept.
//   - semver-skippatch: within each major.minor, the latest version replaces the latest version of
//     the previous major.minor and skips the older versions of its own minor. In the lowest minor,
//     which has no predecessor, the latest replaces the next lower version of its minor and skips
//     the rest. SkipRanges are kept.
//   - replaces: each entry takes replaces, skips and skipRange from its bundle's CSV (when the
//     bundle carries its CSV as an olm.bundle.object; other entries are left as they are).
//
// Semver modes write the entries in ascending version order and fail when a bundle's version is
// not semver or two bundles have the same version.
func RebuildChannel(c *fbc.Catalog, pkg, channel string, mode Mode) error {
	work := clone(c)
	if err := rebuildChannel(work, pkg, channel, mode); err != nil {
		return err
	}
	if err := checkPackages(c, work, pkg); err != nil {
		return err
	}
	*c = *work
	return nil
}

func rebuildChannel(c *fbc.Catalog, pkg, channel string, mode Mode) error {
	ci := findChannel(c, pkg, channel)
	if ci < 0 {
		return fmt.Errorf("package %q has no channel %q (channels: %s)", pkg, channel, strings.Join(channelNames(c, pkg), ", "))
	}
	ch := &c.Channels[ci]
	if mode == ModeReplaces {
		return rebuildFromCSVs(c, ch)
	}
	members := make([]versioned, 0, len(ch.Entries))
	for _, e := range ch.Entries {
		bi := findBundle(c, pkg, e.Name)
		if bi < 0 {
			return fmt.Errorf("channel %q of package %q: entry %q has no olm.bundle blob, so no version to order it by", channel, pkg, e.Name)
		}
		v, err := bundleSemver(&c.Bundles[bi], mode)
		if err != nil {
			return fmt.Errorf("channel %q: %w", channel, err)
		}
		members = append(members, versioned{name: e.Name, version: v, old: e})
	}
	entries, err := semverEntries(members, mode)
	if err != nil {
		return fmt.Errorf("channel %q of package %q: %w", channel, pkg, err)
	}
	ch.Entries = entries
	return nil
}

type versioned struct {
	name    string
	version semver.Version
	old     fbc.ChannelEntry // the entry as it was, for its skipRange and unknown fields
}

// semverEntries builds the entries of a semver or semver-skippatch channel.
func semverEntries(members []versioned, mode Mode) ([]fbc.ChannelEntry, error) {
	sorted := slices.Clone(members)
	slices.SortStableFunc(sorted, func(a, b versioned) int { return compareVersions(a.version, b.version) })
	for i := 1; i < len(sorted); i++ {
		if compareVersions(sorted[i-1].version, sorted[i].version) == 0 {
			return nil, fmt.Errorf("bundles %q and %q have the same version %s: %s mode needs a distinct version per bundle",
				sorted[i-1].name, sorted[i].name, sorted[i].version, mode)
		}
	}
	entries := make([]fbc.ChannelEntry, len(sorted))
	for i, m := range sorted {
		entries[i] = fbc.ChannelEntry{Name: m.name, SkipRange: m.old.SkipRange, Extra: m.old.Extra}
	}
	if mode == ModeSemver {
		for i := 1; i < len(entries); i++ {
			entries[i].Replaces = entries[i-1].Name
		}
		return entries, nil
	}
	// semver-skippatch: walk the minors in order.
	prevLatest := ""
	for start := 0; start < len(sorted); {
		end := start
		for end < len(sorted) && sameMinor(sorted[start].version, sorted[end].version) {
			end++
		}
		latest := &entries[end-1]
		older := make([]string, 0, end-1-start)
		for i := end - 2; i >= start; i-- { // newest first, as opm lists them
			older = append(older, entries[i].Name)
		}
		switch {
		case prevLatest != "":
			latest.Replaces = prevLatest
		case len(older) > 0:
			latest.Replaces, older = older[0], older[1:]
		}
		if len(older) > 0 {
			latest.Skips = older
		}
		prevLatest = latest.Name
		start = end
	}
	return entries, nil
}

func sameMinor(a, b semver.Version) bool { return a.Major == b.Major && a.Minor == b.Minor }

// rebuildFromCSVs sets each entry's replaces, skips and skipRange from its bundle's CSV.
func rebuildFromCSVs(c *fbc.Catalog, ch *fbc.Channel) error {
	for i := range ch.Entries {
		e := &ch.Entries[i]
		bi := findBundle(c, ch.Package, e.Name)
		if bi < 0 {
			continue
		}
		info, ok := csvInfoOf(&c.Bundles[bi])
		if !ok {
			continue
		}
		e.Replaces, e.Skips, e.SkipRange = info.Replaces, info.Skips, info.SkipRange
	}
	return nil
}
