package template

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/property"
	"github.com/olmcat/olmcat/internal/textsafe"
)

// Output formats of render-template.
const (
	OutputJSON    = "json"
	OutputYAML    = "yaml"
	OutputMermaid = "mermaid"
)

// Write writes a rendered catalog as opm's render-template writes it: json or yaml in opm's
// order (packages by name; in each the olm.package, channels by name, bundles by name, other
// schemas, deprecations; blobs of other schemas that name no package last), or mermaid, opm's
// picture of the channels.
func Write(w io.Writer, c *fbc.Catalog, format string) error {
	switch format {
	case OutputJSON, OutputYAML:
		rest, rootOthers := splitRootOthers(c)
		if err := fbc.Write(w, rest, fbc.Format(format)); err != nil {
			return err
		}
		if len(rootOthers) == 0 {
			return nil
		}
		return fbc.Write(w, &fbc.Catalog{Others: rootOthers}, fbc.Format(format))
	case OutputMermaid:
		return writeMermaid(w, c)
	}
	return fmt.Errorf("invalid --output value %q, expected (json|yaml|mermaid)", format)
}

// splitRootOthers separates the blobs of other schemas that name no package (opm writes them
// last) and leaves out the core blobs that name no package (opm does not write them).
func splitRootOthers(c *fbc.Catalog) (*fbc.Catalog, []fbc.Meta) {
	rest := &fbc.Catalog{
		Packages:     slices.DeleteFunc(slices.Clone(c.Packages), func(p fbc.Package) bool { return p.Name == "" }),
		Channels:     slices.DeleteFunc(slices.Clone(c.Channels), func(ch fbc.Channel) bool { return ch.Package == "" }),
		Bundles:      slices.DeleteFunc(slices.Clone(c.Bundles), func(b fbc.Bundle) bool { return b.Package == "" }),
		Deprecations: slices.DeleteFunc(slices.Clone(c.Deprecations), func(d fbc.Deprecation) bool { return d.Package == "" }),
	}
	var root []fbc.Meta
	for _, m := range c.Others {
		if m.Package == "" {
			root = append(root, m)
		} else {
			rest.Others = append(rest.Others, m)
		}
	}
	return rest, root
}

// writeMermaid draws the channels as opm's MermaidWriter does (no minimum edge, no package
// filter, v0 semantics): per package and channel, entries by decreasing version with their
// skips, skipRange and replaces edges; deprecated and skipped bundles decorated.
func writeMermaid(w io.Writer, c *fbc.Catalog) error {
	versions := map[string]semver.Version{}
	for _, b := range c.Bundles {
		if _, ok := versions[b.Name]; ok {
			continue
		}
		props, err := property.Parse(b.Properties)
		if err != nil {
			return fmt.Errorf("parse properties for bundle %q: %v", b.Name, err)
		}
		if len(props.Packages) != 1 {
			return fmt.Errorf("bundle %q has multiple %q properties, expected exactly 1", b.Name, property.TypePackage)
		}
		v, err := semver.Parse(props.Packages[0].Version)
		if err != nil {
			return fmt.Errorf("bundle %q has invalid version %q: %v", b.Name, props.Packages[0].Version, err)
		}
		versions[b.Name] = v
	}
	depPackage, depChannel, depBundle := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, d := range c.Deprecations {
		for _, e := range d.Entries {
			switch e.Reference.Schema {
			case fbc.SchemaPackage:
				depPackage[d.Package] = true
			case fbc.SchemaChannel:
				depChannel[e.Reference.Name] = true
			case fbc.SchemaBundle:
				depBundle[e.Reference.Name] = true
			}
		}
	}
	channels := slices.Clone(c.Channels)
	slices.SortStableFunc(channels, func(a, b fbc.Channel) int { return cmp.Compare(a.Name, b.Name) })

	pkgs := map[string]*strings.Builder{}
	var deprecatedPackage string
	var deprecatedChannels, skippedLinks []string
	decorated := map[string][]string{"deprecated": nil, "skipped": nil, "deprecatedskipped": nil}
	link := 0
	for _, ch := range channels {
		sb, ok := pkgs[ch.Package]
		if !ok {
			sb = &strings.Builder{}
			pkgs[ch.Package] = sb
		}
		// Names go into ids and labels through textsafe: opm's bytes for ordinary names, and no
		// name that ends an id or a label, or holds a directive (README, Promises).
		channelID := textsafe.MermaidID(ch.Package + "-" + ch.Name)
		fmt.Fprintf(sb, "    %%%% channel %s\n", textsafe.MermaidQuoted(ch.Name))
		fmt.Fprintf(sb, "    subgraph %s[%s]\n", channelID, textsafe.MermaidQuoted(ch.Name))
		if depPackage[ch.Package] {
			deprecatedPackage = ch.Package
		}
		if depChannel[ch.Name] {
			deprecatedChannels = append(deprecatedChannels, channelID)
		}
		entries := slices.Clone(ch.Entries)
		slices.SortStableFunc(entries, func(a, b fbc.ChannelEntry) int {
			va, vb := versions[a.Name], versions[b.Name]
			return vb.Compare(va)
		})
		skipped := map[string]bool{}
		seen := func(edge string, capture bool) {
			if skipped[edge] {
				skippedLinks = append(skippedLinks, fmt.Sprint(link))
			} else if capture {
				skipped[edge] = true
			}
		}
		for _, e := range entries {
			entryID := channelID + "-" + textsafe.MermaidID(e.Name)
			fmt.Fprintf(sb, "      %s[%s]\n", entryID, textsafe.MermaidQuoted(e.Name))
			switch {
			case depBundle[e.Name] && skipped[e.Name]:
				decorated["deprecatedskipped"] = append(decorated["deprecatedskipped"], entryID)
			case depBundle[e.Name]:
				decorated["deprecated"] = append(decorated["deprecated"], entryID)
			case skipped[e.Name]:
				decorated["skipped"] = append(decorated["skipped"], entryID)
			}
			for _, s := range e.Skips {
				fmt.Fprintf(sb, "      %s-%s[%s]-- %s --> %s[%s]\n", channelID, textsafe.MermaidID(s), textsafe.MermaidQuoted(s), "skip", entryID, textsafe.MermaidQuoted(e.Name))
				seen(s, true)
				link++
			}
			if e.SkipRange != "" {
				if r, err := semver.ParseRange(e.SkipRange); err == nil {
					for _, other := range ch.Entries {
						if r(versions[other.Name]) {
							fmt.Fprintf(sb, "      %s-%s[%s]-- %s --> %s[%s]\n", channelID, textsafe.MermaidID(other.Name), textsafe.MermaidQuoted(other.Name),
								textsafe.MermaidQuoted("skipRange("+e.SkipRange+")"), entryID, textsafe.MermaidQuoted(e.Name))
							seen(e.Name, false)
							link++
						}
					}
				}
			}
			if e.Replaces != "" {
				fmt.Fprintf(sb, "      %s-%s[%s]-- %s --> %s[%s]\n", channelID, textsafe.MermaidID(e.Replaces), textsafe.MermaidQuoted(e.Replaces), "replace", entryID, textsafe.MermaidQuoted(e.Name))
				seen(e.Name, false)
				link++
			}
		}
		sb.WriteString("    end\n")
	}
	var b strings.Builder
	b.WriteString("graph LR\n")
	b.WriteString("  classDef deprecated fill:#E8960F\n")
	b.WriteString("  classDef skipped stroke:#FF0000,stroke-width:4px\n")
	b.WriteString("  classDef deprecatedskipped fill:#E8960F,stroke:#FF0000,stroke-width:4px\n")
	names := make([]string, 0, len(pkgs))
	for name := range pkgs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(&b, "  %%%% package %s\n", textsafe.MermaidQuoted(name))
		fmt.Fprintf(&b, "  subgraph %s\n", textsafe.MermaidQuoted(name))
		b.WriteString(pkgs[name].String())
		b.WriteString("  end\n")
	}
	if deprecatedPackage != "" {
		fmt.Fprintf(&b, "style %s fill:#989695\n", textsafe.MermaidID(deprecatedPackage))
	}
	for _, id := range deprecatedChannels {
		fmt.Fprintf(&b, "style %s fill:#DCD0FF\n", id)
	}
	for _, class := range []string{"deprecated", "deprecatedskipped", "skipped"} {
		if ids := decorated[class]; len(ids) > 0 {
			ids = slices.Clone(ids)
			slices.Sort(ids)
			fmt.Fprintf(&b, "class %s %s\n", strings.Join(ids, ","), class)
		}
	}
	if len(skippedLinks) > 0 {
		fmt.Fprintf(&b, "linkStyle %s %s\n", strings.Join(skippedLinks, ","), "stroke:#FF0000,stroke-width:3px,stroke-dasharray:5;")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
