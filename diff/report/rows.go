package report

import (
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/diff"
)

// row is one line of a report for people: one finding, or findings that belong together. Grouping
// is presentation only: -o json keeps every finding (SCHEMA.md).
type row struct {
	severity diff.Severity
	kind     string
	where    string
	change   string
}

// groupRows turns findings (worst first) into rows, in the same order:
//   - a release is one row: a bundle added, its entries in channels and the heads it became
//     (bundle-added, entry-added, head-changed, all info);
//   - findings that say the same thing (same severity, kind, package, field and words) in several
//     channels or about several bundles are one row that lists where.
func groupRows(fs []diff.Finding) []row {
	type bundleKey struct{ pkg, bundle string }
	added := map[bundleKey]bool{}
	for _, f := range fs {
		if f.Kind == diff.BundleAdded && f.Severity == diff.Info {
			added[bundleKey{f.Package, f.Bundle}] = true
		}
	}
	releaseOf := func(f diff.Finding) (bundleKey, bool) {
		switch {
		case f.Severity != diff.Info:
		case f.Kind == diff.BundleAdded, f.Kind == diff.EntryAdded:
			k := bundleKey{f.Package, f.Bundle}
			return k, added[k]
		case f.Kind == diff.HeadChanged:
			k := bundleKey{f.Package, f.New}
			return k, added[k]
		}
		return bundleKey{}, false
	}
	removed := map[bundleKey]bool{}
	for _, f := range fs {
		if f.Kind == diff.BundleRemoved && f.Severity == diff.Info {
			removed[bundleKey{f.Package, f.Bundle}] = true
		}
	}
	// removalOf: a bundle removed and its entries removed from channels, all info, are one row, as
	// a release is.
	removalOf := func(f diff.Finding) (bundleKey, bool) {
		if f.Severity != diff.Info || (f.Kind != diff.BundleRemoved && f.Kind != diff.EntryRemoved) {
			return bundleKey{}, false
		}
		k := bundleKey{f.Package, f.Bundle}
		return k, removed[k]
	}
	removals := map[bundleKey][]diff.Finding{}
	releases := map[bundleKey][]diff.Finding{}
	sameKey := func(f diff.Finding) string {
		return strings.Join([]string{string(f.Severity), string(f.Kind), f.Package, f.Field, change(f)}, "\x00")
	}
	same := map[string][]diff.Finding{}
	for _, f := range fs {
		if k, ok := releaseOf(f); ok {
			releases[k] = append(releases[k], f)
		} else if k, ok := removalOf(f); ok {
			removals[k] = append(removals[k], f)
		} else if f.Channel != "" || f.Bundle != "" {
			same[sameKey(f)] = append(same[sameKey(f)], f)
		}
	}
	var rows []row
	done := map[string]bool{}
	for _, f := range fs {
		if k, ok := releaseOf(f); ok {
			if id := "release\x00" + k.pkg + "\x00" + k.bundle; !done[id] {
				done[id] = true
				rows = append(rows, releaseRow(releases[k]))
			}
			continue
		}
		if k, ok := removalOf(f); ok {
			if id := "removal\x00" + k.pkg + "\x00" + k.bundle; !done[id] {
				done[id] = true
				rows = append(rows, removalRow(removals[k]))
			}
			continue
		}
		if group := same[sameKey(f)]; len(group) > 1 {
			if id := "same\x00" + sameKey(f); !done[id] {
				done[id] = true
				rows = append(rows, sameRow(group))
			}
			continue
		}
		rows = append(rows, row{f.Severity, string(f.Kind), whereInCatalog(f), change(f)})
	}
	return rows
}

// releaseRow says in one row what a new bundle is: its version and image, the channels it joined
// with their edges, and those it heads now.
func releaseRow(fs []diff.Finding) row {
	var bundle diff.Finding
	var kinds, channels, parts []string
	seenKind := map[diff.Kind]bool{}
	heads := map[string]string{}
	for _, f := range fs {
		if !seenKind[f.Kind] {
			seenKind[f.Kind] = true
			kinds = append(kinds, string(f.Kind))
		}
		switch f.Kind {
		case diff.BundleAdded:
			bundle = f
		case diff.HeadChanged:
			heads[f.Channel] = f.Old
		}
	}
	// Channels where the bundle has the same edges and follows the same head are said together.
	var suffixes []string
	bySuffix := map[string][]string{}
	for _, f := range fs {
		if f.Kind != diff.EntryAdded {
			continue
		}
		channels = append(channels, f.Channel)
		suffix := ""
		if f.New != "" {
			suffix += " (" + f.New + ")"
		}
		if old, ok := heads[f.Channel]; ok {
			suffix += ", the new head after " + old
		}
		if bySuffix[suffix] == nil {
			suffixes = append(suffixes, suffix)
		}
		bySuffix[suffix] = append(bySuffix[suffix], f.Channel)
	}
	for _, suffix := range suffixes {
		in := bySuffix[suffix]
		switch {
		case len(in) == 1:
			parts = append(parts, "in channel "+in[0]+suffix)
		case len(suffixes) == 1: // WHERE lists them
			parts = append(parts, fmt.Sprintf("in its %d channels%s", len(in), suffix))
		default:
			parts = append(parts, fmt.Sprintf("in %d channels: %s%s", len(in), strings.Join(in, ", "), suffix))
		}
	}
	text := change(bundle)
	if _, rest, ok := strings.Cut(text, " added ("); ok {
		text = "added (" + rest // the bundle is named in WHERE
	}
	if len(parts) > 0 {
		text += "; " + strings.Join(parts, "; ")
	}
	where := "package " + bundle.Package + "\nbundle " + bundle.Bundle
	if len(channels) > 0 {
		where += "\nchannel " + strings.Join(channels, ", ")
	}
	return row{diff.Info, strings.Join(kinds, "\n"), where, text}
}

// removalRow says in one row that a bundle was removed: its version and image, and the channels
// it left, those whose entry had the same edges named together.
func removalRow(fs []diff.Finding) row {
	var bundle diff.Finding
	var kinds, channels, edges []string
	seenKind := map[diff.Kind]bool{}
	byEdge := map[string][]string{}
	for _, f := range fs {
		if !seenKind[f.Kind] {
			seenKind[f.Kind] = true
			kinds = append(kinds, string(f.Kind))
		}
		switch f.Kind {
		case diff.BundleRemoved:
			bundle = f
		case diff.EntryRemoved:
			channels = append(channels, f.Channel)
			edge := f.Old + f.New
			if byEdge[edge] == nil {
				edges = append(edges, edge)
			}
			byEdge[edge] = append(byEdge[edge], f.Channel)
		}
	}
	text := change(bundle)
	if _, rest, ok := strings.Cut(text, " removed ("); ok {
		text = "removed (" + rest // the bundle is named in WHERE
	}
	for _, edge := range edges {
		part := "from channel " + strings.Join(byEdge[edge], ", ")
		switch n := len(byEdge[edge]); {
		case len(edges) == 1 && n > 1: // WHERE lists them
			part = fmt.Sprintf("from its %d channels", n)
		case n > 1:
			part = fmt.Sprintf("from %d channels: %s", n, strings.Join(byEdge[edge], ", "))
		}
		if edge != "" {
			part += " (" + edge + ")"
		}
		text += "; " + part
	}
	where := "package " + bundle.Package + "\nbundle " + bundle.Bundle
	if len(channels) > 0 {
		where += "\nchannel " + strings.Join(channels, ", ")
	}
	return row{diff.Info, strings.Join(kinds, "\n"), where, text}
}

// sameRow is one row for the same change in several places: one bundle in several channels, several
// bundles of one channel (or of none), or any mix.
func sameRow(fs []diff.Finding) row {
	f := fs[0]
	channels, bundles := map[string]bool{}, map[string]bool{}
	var places []string
	for _, g := range fs {
		channels[g.Channel], bundles[g.Bundle] = true, true
	}
	one := f
	switch {
	case len(bundles) == 1:
		one.Channel = ""
		for _, g := range fs {
			places = append(places, g.Channel)
		}
		places[0] = fmt.Sprintf("%d channels: %s", len(fs), places[0])
	case len(channels) == 1:
		one.Bundle = ""
		for _, g := range fs {
			places = append(places, g.Bundle)
		}
		places[0] = fmt.Sprintf("%d bundles: %s", len(fs), places[0])
	default:
		one.Channel, one.Bundle = "", ""
		for _, g := range fs {
			places = append(places, "channel "+g.Channel+" bundle "+g.Bundle)
		}
		places[0] = fmt.Sprintf("%d places: %s", len(fs), places[0])
	}
	one.Field = "" // said once, after the places
	loc := "package " + f.Package
	if w := where(one); w != "" && !strings.HasPrefix(w, "package ") {
		loc += "\n" + w
	}
	loc += "\n" + strings.Join(places, ", ")
	if field := where(diff.Finding{Category: f.Category, Field: f.Field}); field != "" {
		loc += "\n" + field
	}
	return row{f.Severity, fmt.Sprintf("%s ×%d", f.Kind, len(fs)), loc, change(f)}
}
