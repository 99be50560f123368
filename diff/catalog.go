package diff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/plural"
)

// comparePackage reports the catalog changes of one package. A package only one side has is one
// finding; its contents are counted in the package statistics, not listed.
func comparePackage(name string, op, np *pkgIndex) []Finding {
	mk := func(k Kind) Finding { return newFinding(k, name, "", "") }
	switch {
	case (op == nil || op.blob == nil) && np != nil && np.blob != nil:
		f := mk(PackageAdded)
		f.New = np.blob.DefaultChannel
		f.Message = fmt.Sprintf("package %q added with %s and %s (default channel %q)",
			name, plural.Of(len(np.channels), "channel"), plural.Of(len(np.bundles), "bundle"), np.blob.DefaultChannel)
		return []Finding{f}
	case op != nil && op.blob != nil && (np == nil || np.blob == nil):
		f := mk(PackageRemoved)
		f.Old = op.blob.DefaultChannel
		f.Message = fmt.Sprintf("package %q removed with its %s and %s", name, plural.Of(len(op.channels), "channel"), plural.Of(len(op.bundles), "bundle"))
		return []Finding{f}
	}
	if op == nil {
		op = &pkgIndex{name: name}
	}
	if np == nil {
		np = &pkgIndex{name: name}
	}
	var out []Finding
	if op.blob != nil && np.blob != nil {
		out = append(out, comparePackageBlob(mk, op.blob, np.blob)...)
	}
	out = append(out, compareChannels(name, op, np)...)
	out = append(out, compareBundles(name, op, np)...)
	out = append(out, compareDeprecations(name, op.deprecations, np.deprecations)...)
	out = append(out, compareOthers(name, op.others, np.others)...)
	return out
}

func comparePackageBlob(mk func(Kind) Finding, o, n *fbc.Package) []Finding {
	var out []Finding
	if o.DefaultChannel != n.DefaultChannel {
		f := mk(DefaultChannelChanged)
		f.Old, f.New = o.DefaultChannel, n.DefaultChannel
		f.Message = fmt.Sprintf("default channel changed from %q to %q", o.DefaultChannel, n.DefaultChannel)
		out = append(out, f)
	}
	if oi, ni := iconSummary(o.Icon), iconSummary(n.Icon); oi != ni {
		f := mk(IconChanged)
		f.Old, f.New = oi, ni
		f.Message = "package icon " + changeVerb(oi, ni)
		out = append(out, f)
	}
	if o.Description != n.Description {
		f := mk(DescriptionChanged)
		f.Old, f.New = shortValue(o.Description), shortValue(n.Description)
		f.Message = descriptionChange(o.Description, n.Description)
		out = append(out, f)
	}
	out = append(out, compareGenericProperties(mk, "package", o.Properties, n.Properties)...)
	out = append(out, extraDiff(mk, "olm.package", o.Extra, n.Extra)...)
	return out
}

// changeVerb says what happened to a value that differs: added (there was none), removed (there
// is none now) or changed.
func changeVerb(old, new string) string {
	switch {
	case old == "":
		return "added"
	case new == "":
		return "removed"
	}
	return "changed"
}

// iconSummary names an icon by media type, size and digest: the data itself is no use in a review.
func iconSummary(icon *fbc.Icon) string {
	if icon == nil {
		return ""
	}
	sum := sha256.Sum256(icon.Data)
	return fmt.Sprintf("%s, %d bytes, sha256:%s", icon.MediaType, len(icon.Data), hex.EncodeToString(sum[:6]))
}

func compareChannels(pkg string, op, np *pkgIndex) []Finding {
	var out []Finding
	for _, name := range unionKeys(op.channels, np.channels) {
		oc, nc := op.channels[name], np.channels[name]
		mk := func(k Kind) Finding { return newFinding(k, pkg, name, "") }
		switch {
		case oc == nil:
			f := mk(ChannelAdded)
			f.New = headSummary(np, name)
			f.Message = fmt.Sprintf("channel %q added with %s", name, plural.Of(len(nc.Entries), "entry"))
			out = append(out, f)
		case nc == nil:
			f := mk(ChannelRemoved)
			f.Old = headSummary(op, name)
			f.Message = fmt.Sprintf("channel %q removed with its %s; its subscribers stop getting updates", name, plural.Of(len(oc.Entries), "entry"))
			if to := switchChannels(op.modelChannel(name), np); to != "" {
				f.Message += " unless they switch channel: " + to
			}
			out = append(out, f)
		default:
			out = append(out, compareEntries(pkg, name, oc.Entries, nc.Entries)...)
			for _, f := range compareGenericProperties(mk, "channel", oc.Properties, nc.Properties) {
				f.Kind = ChannelPropertyChanged
				out = append(out, f)
			}
			out = append(out, extraDiff(mk, "olm.channel", oc.Extra, nc.Extra)...)
		}
	}
	return out
}

// headSummary names a channel's head(s) for findings about the whole channel.
func headSummary(p *pkgIndex, channel string) string {
	if ch := p.modelChannel(channel); ch != nil {
		return strings.Join(ch.Heads(), ", ")
	}
	return ""
}

func compareEntries(pkg, channel string, old, new []fbc.ChannelEntry) []Finding {
	oe, ne := entriesByName(old), entriesByName(new)
	var out []Finding
	for _, name := range unionKeys(oe, ne) {
		o, n := oe[name], ne[name]
		mk := func(k Kind) Finding { return newFinding(k, pkg, channel, name) }
		switch {
		case o == nil:
			f := mk(EntryAdded)
			f.New = entrySummary(n)
			f.Message = fmt.Sprintf("entry %q added to channel %q", name, channel)
			out = append(out, f)
		case n == nil:
			f := mk(EntryRemoved)
			f.Old = entrySummary(o)
			f.Message = fmt.Sprintf("entry %q removed from channel %q", name, channel)
			out = append(out, f)
		default:
			if o.Replaces != n.Replaces {
				f := mk(ReplacesChanged)
				f.Old, f.New = o.Replaces, n.Replaces
				f.Message = fmt.Sprintf("replaces changed from %q to %q", o.Replaces, n.Replaces)
				out = append(out, f)
			}
			if os, ns := sortedJoin(o.Skips), sortedJoin(n.Skips); os != ns {
				f := mk(SkipsChanged)
				f.Old, f.New = os, ns
				f.Message = fmt.Sprintf("skips changed from [%s] to [%s]", os, ns)
				out = append(out, f)
			}
			if o.SkipRange != n.SkipRange {
				f := mk(SkipRangeChanged)
				f.Old, f.New = o.SkipRange, n.SkipRange
				f.Message = fmt.Sprintf("skipRange changed from %q to %q", o.SkipRange, n.SkipRange)
				out = append(out, f)
			}
			out = append(out, extraDiff(mk, "channel entry", o.Extra, n.Extra)...)
		}
	}
	return out
}

func entriesByName(entries []fbc.ChannelEntry) map[string]*fbc.ChannelEntry {
	out := make(map[string]*fbc.ChannelEntry, len(entries))
	for i := range entries {
		if _, dup := out[entries[i].Name]; !dup {
			out[entries[i].Name] = &entries[i]
		}
	}
	return out
}

// entrySummary writes an entry's edges compactly: "replaces X, skips [Y Z], skipRange R".
func entrySummary(e *fbc.ChannelEntry) string {
	var parts []string
	if e.Replaces != "" {
		parts = append(parts, "replaces "+e.Replaces)
	}
	if len(e.Skips) > 0 {
		parts = append(parts, "skips ["+sortedJoin(e.Skips)+"]")
	}
	if e.SkipRange != "" {
		parts = append(parts, "skipRange "+e.SkipRange)
	}
	return strings.Join(parts, ", ")
}

func sortedJoin(list []string) string {
	s := append([]string(nil), list...)
	sort.Strings(s)
	return strings.Join(s, " ")
}

func compareDeprecations(pkg string, old, new map[deprecationRef]string) []Finding {
	keys := map[deprecationRef]bool{}
	for k := range old {
		keys[k] = true
	}
	for k := range new {
		keys[k] = true
	}
	var out []Finding
	for ref := range keys {
		o, inOld := old[ref]
		n, inNew := new[ref]
		if inOld && inNew && o == n {
			continue
		}
		var f Finding
		switch {
		case !inOld:
			f = deprecationFinding(DeprecationAdded, pkg, ref)
			f.New = shortValue(n)
		case !inNew:
			f = deprecationFinding(DeprecationRemoved, pkg, ref)
			f.Old = shortValue(o)
		default:
			f = deprecationFinding(DeprecationChanged, pkg, ref)
			f.Old, f.New = shortValue(o), shortValue(n)
		}
		out = append(out, f)
	}
	return out
}

func deprecationFinding(k Kind, pkg string, ref deprecationRef) Finding {
	verb := map[Kind]string{DeprecationAdded: "deprecated", DeprecationRemoved: "no longer deprecated",
		DeprecationChanged: "deprecation message changed"}[k]
	switch ref.schema {
	case fbc.SchemaChannel:
		f := newFinding(k, pkg, ref.name, "")
		f.Message = fmt.Sprintf("channel %q %s", ref.name, verb)
		return f
	case fbc.SchemaBundle:
		f := newFinding(k, pkg, "", ref.name)
		f.Message = fmt.Sprintf("bundle %q %s", ref.name, verb)
		return f
	default:
		f := newFinding(k, pkg, "", "")
		f.Field = ref.schema
		if ref.schema != fbc.SchemaPackage {
			f.Field = ref.schema + " " + ref.name
		}
		f.Message = fmt.Sprintf("package %q %s", pkg, verb)
		return f
	}
}

// compareOthers compares blobs of other schemas by (schema, name), as canonical JSON.
func compareOthers(pkg string, old, new []fbc.Meta) []Finding {
	group := func(ms []fbc.Meta) map[string][]string {
		out := map[string][]string{}
		for _, m := range ms {
			key := m.Schema + "\x00" + m.Name
			out[key] = append(out[key], canonicalJSON(m.Blob))
		}
		return out
	}
	if len(old) == len(new) && othersEqual(old, new) {
		return nil
	}
	og, ng := group(old), group(new)
	mk := func(k Kind) Finding { return newFinding(k, pkg, "", "") }
	kinds := changeKinds{OtherBlobAdded, OtherBlobRemoved, OtherBlobChanged}
	var out []Finding
	for _, key := range unionKeys(og, ng) {
		schema, name, _ := strings.Cut(key, "\x00")
		label := fmt.Sprintf("%s blob", schema)
		if name != "" {
			label = fmt.Sprintf("%s blob %q", schema, name)
		}
		out = append(out, compareValues(mk, schema, kinds, label, og[key], ng[key])...)
	}
	return out
}

func othersEqual(a, b []fbc.Meta) bool {
	for i := range a {
		if a[i].Schema != b[i].Schema || a[i].Name != b[i].Name || !bytes.Equal(a[i].Blob, b[i].Blob) {
			return false
		}
	}
	return true
}
