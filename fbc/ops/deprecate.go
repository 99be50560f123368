package ops

import (
	"fmt"
	"slices"
	"strings"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
)

// DeprecateOptions say what to deprecate: the package, or one of its channels or bundles.
type DeprecateOptions struct {
	Package string
	Channel string // deprecate this channel (not with Bundle)
	Bundle  string // deprecate this bundle (not with Channel)
	Message string
	// Undo removes the deprecation instead of writing it.
	Undo bool
}

// Deprecate writes (or, with Undo, removes) an olm.deprecations entry. The package, channel or
// bundle must exist; an existing entry for the same object gets the new message.
func Deprecate(c *fbc.Catalog, opts DeprecateOptions) (notes []string, err error) {
	ref, what, err := deprecationRef(c, opts)
	if err != nil {
		return nil, err
	}
	work := clone(c)
	di := slices.IndexFunc(work.Deprecations, func(d fbc.Deprecation) bool { return d.Package == opts.Package })
	if opts.Undo {
		if di < 0 || !slices.ContainsFunc(work.Deprecations[di].Entries, sameRef(ref)) {
			return nil, fmt.Errorf("%s is not deprecated: nothing to undo", what)
		}
		notes = dropDeprecations(work, opts.Package, ref.Schema, ref.Name)
	} else {
		if strings.TrimSpace(opts.Message) == "" {
			return nil, fmt.Errorf("deprecating %s needs a message (--message) telling users what to do instead", what)
		}
		if di < 0 {
			work.Deprecations = append(work.Deprecations, fbc.Deprecation{Schema: fbc.SchemaDeprecations, Package: opts.Package})
			di = len(work.Deprecations) - 1
		}
		d := &work.Deprecations[di]
		if ei := slices.IndexFunc(d.Entries, sameRef(ref)); ei >= 0 {
			d.Entries[ei].Message = opts.Message
			notes = append(notes, fmt.Sprintf("updated the deprecation message of %s", what))
		} else {
			d.Entries = append(d.Entries, fbc.DeprecationEntry{Reference: ref, Message: opts.Message})
			notes = append(notes, fmt.Sprintf("deprecated %s", what))
		}
	}
	if err := checkPackages(c, work, opts.Package); err != nil {
		return nil, err
	}
	*c = *work
	return notes, nil
}

func sameRef(ref fbc.Reference) func(fbc.DeprecationEntry) bool {
	return func(e fbc.DeprecationEntry) bool {
		return e.Reference.Schema == ref.Schema && e.Reference.Name == ref.Name
	}
}

func deprecationRef(c *fbc.Catalog, opts DeprecateOptions) (fbc.Reference, string, error) {
	if opts.Package == "" {
		return fbc.Reference{}, "", fmt.Errorf("name the package to deprecate (or whose channel or bundle to deprecate) with --package")
	}
	if findPackage(c, opts.Package) < 0 {
		return fbc.Reference{}, "", fmt.Errorf("no package %q in the catalog", opts.Package)
	}
	switch {
	case opts.Channel != "" && opts.Bundle != "":
		return fbc.Reference{}, "", fmt.Errorf("deprecate either a channel or a bundle, not both")
	case opts.Channel != "":
		if findChannel(c, opts.Package, opts.Channel) < 0 {
			return fbc.Reference{}, "", fmt.Errorf("cannot deprecate channel %q: package %q has no such channel (channels: %s)",
				opts.Channel, opts.Package, strings.Join(channelNames(c, opts.Package), ", "))
		}
		return fbc.Reference{Schema: fbc.SchemaChannel, Name: opts.Channel}, fmt.Sprintf("channel %q of package %q", opts.Channel, opts.Package), nil
	case opts.Bundle != "":
		if findBundle(c, opts.Package, opts.Bundle) < 0 {
			return fbc.Reference{}, "", fmt.Errorf("cannot deprecate bundle %q: package %q has no such bundle", opts.Bundle, opts.Package)
		}
		return fbc.Reference{Schema: fbc.SchemaBundle, Name: opts.Bundle}, fmt.Sprintf("bundle %q of package %q", opts.Bundle, opts.Package), nil
	}
	return fbc.Reference{Schema: fbc.SchemaPackage}, fmt.Sprintf("package %q", opts.Package), nil
}

// legacyChannelDeprecation is the value of an olm.deprecated.channel property.
// ConvertLegacyDeprecations turns every olm.deprecated.channel channel property into an
// olm.deprecations entry for that channel (fallback channels are named in the message) and
// removes the property. A channel that already has an olm.deprecations entry keeps it.
func ConvertLegacyDeprecations(c *fbc.Catalog) (notes []string, err error) {
	work := clone(c)
	var touched []string
	for ci := range work.Channels {
		ch := &work.Channels[ci]
		for _, p := range ch.Properties {
			if p.Type != property.TypeLegacyChannelDeprecation {
				continue
			}
			v, err := property.ParseLegacyChannelDeprecation(p.Value)
			if err != nil {
				return nil, fmt.Errorf("channel %q of package %q (%s): %s property: %w", ch.Name, ch.Package, ch.Loc, property.TypeLegacyChannelDeprecation, err)
			}
			ref := fbc.Reference{Schema: fbc.SchemaChannel, Name: ch.Name}
			di := slices.IndexFunc(work.Deprecations, func(d fbc.Deprecation) bool { return d.Package == ch.Package })
			if di >= 0 && slices.ContainsFunc(work.Deprecations[di].Entries, sameRef(ref)) {
				notes = append(notes, fmt.Sprintf("channel %q of package %q: dropped the legacy %s property; its olm.deprecations entry is kept", ch.Name, ch.Package, property.TypeLegacyChannelDeprecation))
				continue
			}
			if di < 0 {
				work.Deprecations = append(work.Deprecations, fbc.Deprecation{Schema: fbc.SchemaDeprecations, Package: ch.Package})
				di = len(work.Deprecations) - 1
			}
			work.Deprecations[di].Entries = append(work.Deprecations[di].Entries,
				fbc.DeprecationEntry{Reference: ref, Message: property.LegacyChannelDeprecationMessage(ch.Name, v)})
			notes = append(notes, fmt.Sprintf("channel %q of package %q: converted the legacy %s property to an olm.deprecations entry", ch.Name, ch.Package, property.TypeLegacyChannelDeprecation))
		}
		before := len(ch.Properties)
		ch.Properties = slices.DeleteFunc(ch.Properties, func(p fbc.Property) bool { return p.Type == property.TypeLegacyChannelDeprecation })
		if len(ch.Properties) < before && !slices.Contains(touched, ch.Package) {
			touched = append(touched, ch.Package)
		}
	}
	if err := checkPackages(c, work, touched...); err != nil {
		return nil, err
	}
	*c = *work
	return notes, nil
}
