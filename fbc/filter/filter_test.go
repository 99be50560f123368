package filter

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

func load(t *testing.T, text string) *fbc.Catalog {
	t.Helper()
	c, err := fbc.LoadReader(strings.NewReader(text), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// bundleYAML is one bundle blob of package p at version v.
func bundleYAML(p, name, v string) string {
	return `---
schema: olm.bundle
package: ` + p + `
name: ` + name + `
image: quay.io/ns/` + name + `
properties:
- type: olm.package
  value: {packageName: ` + p + `, version: "` + v + `"}
relatedImages:
- name: operand
  image: quay.io/ns/operand:` + v + `
`
}

// habana is a package whose every version carries a build number as pre-release, as
// habana-ai-operator's do: oc-mirror (Masterminds constraints) cannot select them by version.
func habana() string {
	s := `---
schema: olm.package
name: habana
defaultChannel: stable
---
schema: olm.channel
package: habana
name: stable
entries:
- name: habana.v1.20.0-100
- name: habana.v1.21.0-555
  replaces: habana.v1.20.0-100
- name: habana.v1.21.1-600
  replaces: habana.v1.21.0-555
- name: habana.v1.22.0-700
  replaces: habana.v1.21.1-600
`
	for _, v := range []string{"1.20.0-100", "1.21.0-555", "1.21.1-600", "1.22.0-700"} {
		s += bundleYAML("habana", "habana.v"+v, v)
	}
	return s
}

func keptNames(c *fbc.Catalog) []string {
	var out []string
	for _, b := range c.Bundles {
		out = append(out, b.Name)
	}
	return out
}

// TestPreReleaseVersionsAreVersions: minVersion 1.21.0 keeps 1.21.1-600 and 1.22.0-700 (OLM's
// order: 1.21.0-555 sorts below 1.21.0); oc-mirror keeps nothing and stops.
func TestPreReleaseVersionsAreVersions(t *testing.T) {
	r, err := MinMax("1.21.0", "", "test")
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := filterPackage("habana", load(t, habana()), &Package{Name: "habana", Range: r}, false)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(keptNames(out), " ")
	if got != "habana.v1.21.1-600 habana.v1.22.0-700" {
		t.Errorf("kept %s", got)
	}
	if rep.Channels[0].Head != "habana.v1.22.0-700" || rep.Channels[0].Removed != 2 {
		t.Errorf("report %+v", rep.Channels[0])
	}
	r, _ = MinMax("1.21.0-555", "1.21.1-600", "test")
	out, _, err = filterPackage("habana", load(t, habana()), &Package{Name: "habana", Range: r}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(keptNames(out), " "); got != "habana.v1.21.0-555 habana.v1.21.1-600" {
		t.Errorf("pre-release bounds kept %s", got)
	}
}

// TestRangeNeverLeavesTheChannel: sailoperator stable-1.27 up to 1.27.0. catalog-filter follows
// v1.27.0's replaces to v1.26.3 of channel stable-1.26 and keeps it, in no channel; olmcat keeps
// the channel's bundles only, and the result validates.
func TestRangeNeverLeavesTheChannel(t *testing.T) {
	root := corpus(t)
	r, _ := MinMax("", "1.27.0", "test")
	cfg := &Config{Packages: []Package{{Name: "sailoperator", DefaultChannel: "stable-1.27", Channels: []Channel{{Name: "stable-1.27", Range: r}}}}}
	out, rep, err := Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Channels) != 1 {
		t.Fatalf("kept %d channels", len(out.Channels))
	}
	inChannel := map[string]bool{}
	for _, e := range out.Channels[0].Entries {
		inChannel[e.Name] = true
	}
	if len(out.Bundles) == 0 {
		t.Fatal("kept no bundle")
	}
	for _, b := range out.Bundles {
		if !inChannel[b.Name] {
			t.Errorf("bundle %s kept outside the kept channel", b.Name)
		}
		if b.Name == "sailoperator.v1.26.3" {
			t.Errorf("kept v1.26.3 of another channel, as catalog-filter does")
		}
	}
	if issues := model.ValidateCatalog(out, model.Options{}).Errors(); len(issues) > 0 {
		t.Errorf("invalid: %v", issues)
	}
	if rep.Packages[0].DefaultChannelDecision != "set by defaultChannel" {
		t.Errorf("decision %q", rep.Packages[0].DefaultChannelDecision)
	}
}

// TestHeadsOnlyWholeCatalog: no package list keeps every package, each channel its head only.
func TestHeadsOnlyWholeCatalog(t *testing.T) {
	root := corpus(t)
	src := openCatalog(t, filepath.Join(root, "input"))
	in, err := src.Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m, _ := model.FromCatalog(in)
	out, rep, err := Collect(context.Background(), src, &Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Packages) != len(m.Packages) || len(rep.Packages) != len(m.Packages) {
		t.Errorf("kept %d packages of %d", len(out.Packages), len(m.Packages))
	}
	for _, ch := range out.Channels {
		want := model.NewUpgradeGraph(m.Packages[ch.Package].Channels[ch.Name]).Head()
		if len(ch.Entries) != 1 || ch.Entries[0].Name != want {
			t.Errorf("%s/%s kept %v, want its head %s", ch.Package, ch.Name, ch.Entries, want)
		}
	}
	if issues := model.ValidateCatalog(out, model.Options{}).Errors(); len(issues) > 0 {
		t.Errorf("invalid: %v", issues)
	}
}

// TestNamesNotInTheCatalog: a package or channel the catalog lacks is an *Error naming it.
func TestNamesNotInTheCatalog(t *testing.T) {
	root := corpus(t)
	for _, tc := range []struct {
		cfg  *Config
		want []string
	}{
		{&Config{Packages: []Package{{Name: "infinispan"}, {Name: "sail-operator"}}}, []string{"sail-operator", "not in"}},
		{&Config{Packages: []Package{{Name: "infinispan", Channels: []Channel{{Name: "stabel"}}}}}, []string{"infinispan", "no channel stabel", "stable"}},
		{&Config{Packages: []Package{{Name: "infinispan", DefaultChannel: "2.9.x"}}}, []string{"no channel 2.9.x", "defaultChannel"}},
	} {
		_, _, err := Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), tc.cfg)
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("%+v: got %v, want an *Error", tc.cfg.Packages, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
	}
}

// TestRangeEmptyingTheDefaultChannel: a package range that keeps nothing of the default channel
// is refused, naming the channels to choose from; a named channel a range empties is refused too.
func TestRangeEmptyingTheDefaultChannel(t *testing.T) {
	root := corpus(t)
	r, _ := MinMax("1.28.0", "1.28.0", "test")
	// sailoperator's default channel is stable, which holds 1.28.0: kept; stable-1.30 is dropped.
	_, rep, err := Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), &Config{Packages: []Package{{Name: "sailoperator", Range: r}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Packages[0].Channels) != 2 {
		t.Errorf("kept %+v", rep.Packages[0].Channels)
	}
	r, _ = MinMax("9.0.0", "", "test")
	_, _, err = Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), &Config{Packages: []Package{{Name: "infinispan", Range: r}}})
	if err == nil || !strings.Contains(err.Error(), "no bundle") {
		t.Errorf("got %v", err)
	}
	r, _ = MinMax("1.30.0", "", "test")
	_, _, err = Collect(context.Background(), openCatalog(t, filepath.Join(root, "input")), &Config{Packages: []Package{{Name: "sailoperator", DefaultChannel: "stable", Channels: []Channel{{Name: "stable"}, {Name: "stable-1.27", Range: r}}}}})
	var fe *Error
	if !errors.As(err, &fe) || fe.Channel != "stable-1.27" || !strings.Contains(err.Error(), "widen the range") {
		t.Errorf("got %v", err)
	}
}

// TestKeepPathsRestoresACutOffBundle: a kept bundle whose way to the head runs through bundles
// the selection left out gets them back, and is reported; one cut off in the input is named.
func TestKeepPathsRestoresACutOffBundle(t *testing.T) {
	text := `---
schema: olm.package
name: p
defaultChannel: c
---
schema: olm.channel
package: p
name: c
entries:
- name: p.v1
- name: p.v2
  replaces: p.v1
- name: p.v3
  replaces: p.v2
- name: p.v4
  replaces: p.v3
- name: p.v0
`
	for _, v := range []string{"0", "1", "2", "3", "4"} {
		text += bundleYAML("p", "p.v"+v, "1.0."+v)
	}
	m, _ := model.FromCatalog(load(t, text))
	ch := m.Packages["p"].Channels["c"]
	g := model.NewUpgradeGraph(ch)
	kept := map[string]bool{"p.v4": true, "p.v1": true, "p.v0": true}
	added, cut := keepPaths(ch, g, kept)
	if len(added) != 2 || added[0].Bundle != "p.v2" || added[1].Bundle != "p.v3" || added[0].For != "p.v1" {
		t.Errorf("added %+v", added)
	}
	if !kept["p.v2"] || !kept["p.v3"] {
		t.Errorf("kept %v", kept)
	}
	if len(cut) != 1 || cut[0].Bundle != "p.v0" || !cut[0].InInput {
		t.Errorf("cut off %+v", cut)
	}
}
