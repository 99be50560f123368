package compat

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// editedCopy writes a copy of the FBC at src, changed by edit, to a temporary directory.
func editedCopy(t *testing.T, src string, edit func(c *fbc.Catalog)) string {
	t.Helper()
	c, err := fbc.Load(src)
	if err != nil {
		t.Fatalf("load %s: %v", src, err)
	}
	edit(c)
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func findChannel(t *testing.T, c *fbc.Catalog, pkg, name string) *fbc.Channel {
	t.Helper()
	for i := range c.Channels {
		if c.Channels[i].Package == pkg && c.Channels[i].Name == name {
			return &c.Channels[i]
		}
	}
	t.Fatalf("no channel %s/%s", pkg, name)
	return nil
}

func findBundle(t *testing.T, c *fbc.Catalog, name string) *fbc.Bundle {
	t.Helper()
	for i := range c.Bundles {
		if c.Bundles[i].Name == name {
			return &c.Bundles[i]
		}
	}
	t.Fatalf("no bundle %s", name)
	return nil
}

const (
	sgw = "smart-gateway-operator"
	sto = "service-telemetry-operator"
)

// Each seeded divergence in an edited copy of opm's migrate output is caught, against the
// original index.db (every SQLite-vs-FBC normalization on) and against the unedited FBC, in the
// methods where a client would see it.
func TestSeededDivergencesAreCaught(t *testing.T) {
	dir := filepath.Join(corpus(t), "sqlite", "real-infrawatch-05")
	migrated := filepath.Join(dir, "migrate")
	cases := []struct {
		name    string
		edit    func(t *testing.T, c *fbc.Catalog)
		methods []string // methods that must show a difference
		mention string   // a name the differences must mention
		// sameKind are methods that must differ too against the unedited FBC (against the
		// index.db, a normalization legitimately hides them)
		sameKind []string
	}{
		{"dropped property", func(t *testing.T, c *fbc.Catalog) {
			b := findBundle(t, c, sgw+".v2.1.0")
			b.Properties = slices.DeleteFunc(b.Properties, func(p fbc.Property) bool { return p.Type == "olm.gvk" })
		}, []string{ListBundles, GetBundle, GetChannelEntriesThatProvide}, "olm.gvk", nil},
		{"changed replaces", func(t *testing.T, c *fbc.Catalog) {
			e := &findChannel(t, c, sgw, "stable").Entries[1]
			e.Replaces, e.Skips = "", []string{e.Replaces}
		}, []string{ListBundles}, sgw + ".v2.0.1", []string{GetChannelEntriesThatReplace}},
		{"missing bundle", func(t *testing.T, c *fbc.Catalog) {
			c.Bundles = slices.DeleteFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Name == sto+".v1.0.3" })
			for _, ch := range []string{"stable", "stable-1.1"} {
				e := &findChannel(t, c, sto, ch).Entries
				*e = slices.DeleteFunc(*e, func(x fbc.ChannelEntry) bool { return x.Name == sto+".v1.0.3" })
			}
		}, []string{ListBundles, GetBundle, GetChannelEntriesThatProvide}, sto + ".v1.0.3", nil},
		{"different default channel", func(t *testing.T, c *fbc.Catalog) {
			for i := range c.Packages {
				if c.Packages[i].Name == sgw {
					c.Packages[i].DefaultChannel = "latest"
				}
			}
		}, []string{GetPackage}, "latest", nil},
		{"extra channel", func(t *testing.T, c *fbc.Catalog) {
			c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: "beta", Package: sgw,
				Entries: []fbc.ChannelEntry{{Name: sgw + ".v2.1.0"}}})
		}, []string{GetPackage, ListBundles, GetBundleForChannel, GetBundle}, "beta", nil},
	}
	db := openServable(t, filepath.Join(dir, "input.db"))
	original := openCatalogTarget(t, migrated)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			edited := openCatalogTarget(t, editedCopy(t, migrated, func(c *fbc.Catalog) { tc.edit(t, c) }))
			for _, left := range []Target{db, original} {
				r, err := Check(t.Context(), left, edited, Options{})
				if err != nil {
					t.Fatalf("%s: %v", left, err)
				}
				if r.Equal() || r.Verdict() != "different" {
					t.Fatalf("%s vs edited copy: %s", left, r.Summary())
				}
				methods := tc.methods
				if left == original {
					methods = append(slices.Clone(methods), tc.sameKind...)
				}
				for _, m := range methods {
					if !slices.ContainsFunc(r.Methods, func(s MethodStats) bool { return s.Method == m && s.Different > 0 }) {
						t.Errorf("%s vs edited copy: no difference in %s:\n%s", left, shortMethod(m), textOf(t, r))
					}
				}
				if !slices.ContainsFunc(r.Differences, func(d Difference) bool {
					return strings.Contains(d.Diff, tc.mention) || strings.Contains(string(d.Request), tc.mention)
				}) {
					t.Errorf("%s vs edited copy: no difference mentions %q:\n%s", left, tc.mention, textOf(t, r))
				}
			}
		})
	}
	// The unedited pair is equal: the differences above come from the edits.
	TestParity(t, db, original, Options{})
}

func textOf(t *testing.T, r *Report) string {
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
