package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

// undoDepartures takes olmcat's output for one package and reverses the departures reported for it,
// giving back what opm would have written. It fails for a departure that cannot be reversed, which
// for a case where opm succeeded means olmcat departed where it should not have.
func undoDepartures(out []byte, format fbc.Format, r *tofbc.Report, pkg string) ([]byte, error) {
	cat, err := fbc.LoadReader(bytes.NewReader(out), "catalog"+format.Ext())
	if err != nil {
		return nil, fmt.Errorf("read back olmcat's output: %w", err)
	}
	for _, d := range r.Departures {
		if d.Package != pkg {
			continue
		}
		switch d.Code {
		case tofbc.DependencyKept:
			b := findBundle(cat, d.Bundle)
			if b == nil || d.AddedProperty == nil {
				return nil, fmt.Errorf("cannot undo %s", d)
			}
			b.Properties = slices.DeleteFunc(b.Properties, func(p fbc.Property) bool {
				return p.Type == d.AddedProperty.Type && compactJSONForTest(p.Value) == string(d.AddedProperty.Value)
			})
		case tofbc.DeprecatedBundleKept:
			cat.Bundles = slices.DeleteFunc(cat.Bundles, func(b fbc.Bundle) bool { return b.Name == d.Bundle })
			for i := range cat.Channels {
				cat.Channels[i].Entries = slices.DeleteFunc(cat.Channels[i].Entries, func(e fbc.ChannelEntry) bool { return e.Name == d.Bundle })
			}
			for i := range cat.Deprecations {
				cat.Deprecations[i].Entries = slices.DeleteFunc(cat.Deprecations[i].Entries, func(e fbc.DeprecationEntry) bool {
					return e.Reference.Name == d.Bundle
				})
			}
			cat.Deprecations = slices.DeleteFunc(cat.Deprecations, func(dep fbc.Deprecation) bool { return len(dep.Entries) == 0 })
		case tofbc.CSVEdgeAdded, tofbc.ReplacesRepeatedInSkips, tofbc.SkipRangeEdgeAdded, tofbc.StrandedSkipAdded:
			e := findEntry(cat, d.Channel, d.Bundle)
			if e == nil {
				return nil, fmt.Errorf("cannot undo %s", d)
			}
			e.Skips = slices.DeleteFunc(e.Skips, func(s string) bool { return s == d.AddedSkip })
			if len(e.Skips) == 0 {
				e.Skips = nil
			}
		default:
			return nil, fmt.Errorf("departure %s cannot be undone: opm would not have written this package", d)
		}
	}
	var buf bytes.Buffer
	if err := fbc.Write(&buf, cat, format); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func compactJSONForTest(v []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return string(v)
	}
	return buf.String()
}

func findBundle(c *fbc.Catalog, name string) *fbc.Bundle {
	for i := range c.Bundles {
		if c.Bundles[i].Name == name {
			return &c.Bundles[i]
		}
	}
	return nil
}

func findEntry(c *fbc.Catalog, channel, name string) *fbc.ChannelEntry {
	for i := range c.Channels {
		if c.Channels[i].Name != channel {
			continue
		}
		for j := range c.Channels[i].Entries {
			if c.Channels[i].Entries[j].Name == name {
				return &c.Channels[i].Entries[j]
			}
		}
	}
	return nil
}

func decodeForTest(v string, into any) {
	_ = json.Unmarshal([]byte(v), into)
}
