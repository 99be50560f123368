package ops

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

func assertValid(t *testing.T, c *fbc.Catalog) {
	t.Helper()
	if errs := model.ValidateCatalog(c, model.Options{}).Errors(); len(errs) > 0 {
		t.Fatalf("result is not a valid catalog:\n%v", errs)
	}
}

func entryOf(t *testing.T, c *fbc.Catalog, pkg, ch, name string) fbc.ChannelEntry {
	t.Helper()
	ci := findChannel(c, pkg, ch)
	if ci < 0 {
		t.Fatalf("no channel %s/%s", pkg, ch)
	}
	ei := findEntry(&c.Channels[ci], name)
	if ei < 0 {
		t.Fatalf("no entry %s in %s/%s", name, pkg, ch)
	}
	return c.Channels[ci].Entries[ei]
}

func TestRemoveStitchesReplacesChain(t *testing.T) {
	c := loadCase(t, "sqlite/kube-green-replaces/migrate")
	notes, err := RemoveBundles(c, []string{"kube-green.v0.5.0"}, RemoveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := entryOf(t, c, "kube-green", "alpha", "kube-green.v0.5.1"); e.Replaces != "kube-green.v0.4.1" {
		t.Errorf("v0.5.1 replaces %q after removing v0.5.0, want kube-green.v0.4.1", e.Replaces)
	}
	if findBundle(c, "kube-green", "kube-green.v0.5.0") >= 0 {
		t.Error("bundle blob still there")
	}
	assertValid(t, c)
	// by image, and the head: the next one becomes the head
	if _, err := RemoveBundles(c, []string{"quay.io/conformance/kube-green-bundle:v0.7.1"}, RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if hs := heads(&c.Channels[0]); len(hs) != 1 || hs[0] != "kube-green.v0.7.0" {
		t.Errorf("heads after removing the head: %v", hs)
	}
	assertValid(t, c)
	_ = notes
}

func TestRemoveCarriesSkips(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0", "1.1.0", "1.2.0")
	c.Bundles = append(c.Bundles, newBlob("demo", "1.0.5"))
	ch := &c.Channels[0]
	ch.Entries = append(ch.Entries, fbc.ChannelEntry{Name: "demo.v1.0.5"})
	ch.Entries[1].Skips = []string{"demo.v1.0.5"} // 1.1.0 replaces 1.0.0, skips 1.0.5
	assertValid(t, c)
	if _, err := RemoveBundles(c, []string{"demo.v1.1.0"}, RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	e := entryOf(t, c, "demo", "stable", "demo.v1.2.0")
	if e.Replaces != "demo.v1.0.0" || strings.Join(e.Skips, ",") != "demo.v1.0.5" {
		t.Errorf("1.2.0 after removing 1.1.0: replaces %q skips %q", e.Replaces, e.Skips)
	}
	assertValid(t, c)
}

// TestRemoveSemverDesignExample is the design's `rmb` example: removing etcd 0.9.0 in semver mode
// makes 0.9.2 replace 0.6.1 in alpha and leaves 0.9.2 alone in stable.
func TestRemoveSemverDesignExample(t *testing.T) {
	c := syntheticPackage("etcd", "alpha", "0.6.1", "0.9.0", "0.9.2")
	c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: "stable", Package: "etcd",
		Entries: []fbc.ChannelEntry{{Name: "etcd.v0.9.0"}, {Name: "etcd.v0.9.2", Replaces: "etcd.v0.9.0"}}})
	c.Packages[0].DefaultChannel = "stable"
	if _, err := RemoveBundles(c, []string{"etcd.v0.9.0"}, RemoveOptions{Mode: ModeSemver}); err != nil {
		t.Fatal(err)
	}
	if g := graphOf(c.Channels[0]); g != "etcd.v0.6.1 <  |  | \netcd.v0.9.2 < etcd.v0.6.1 |  | " {
		t.Errorf("alpha: %s", g)
	}
	if g := graphOf(c.Channels[1]); g != "etcd.v0.9.2 <  |  | " {
		t.Errorf("stable: %s", g)
	}
	assertValid(t, c)
}

func TestRemoveRefusals(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0")
	before := writeJSON(t, c)
	if _, err := RemoveBundles(c, []string{"demo.v1.0.0"}, RemoveOptions{}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("emptying a channel: %v", err)
	}
	if _, err := RemoveBundles(c, []string{"nope"}, RemoveOptions{}); err == nil || !strings.Contains(err.Error(), "no bundle named") {
		t.Errorf("unknown bundle: %v", err)
	}
	if writeJSON(t, c) != before {
		t.Fatal("a refused removal changed the catalog")
	}
	if notes, err := RemoveBundles(c, []string{"demo.v1.0.0"}, RemoveOptions{AllowEmpty: true}); err != nil || len(c.Packages) != 0 {
		t.Errorf("--allow-empty on the last bundle should remove the package: %v %q", err, notes)
	}

	// A head that only skips: removing it leaves two heads.
	c = syntheticPackage("demo", "stable", "1.0.0", "1.1.0", "1.2.0")
	ch := &c.Channels[0]
	ch.Entries[1].Replaces = ""
	ch.Entries[2].Replaces = ""
	ch.Entries[2].Skips = []string{"demo.v1.0.0", "demo.v1.1.0"}
	assertValid(t, c)
	if _, err := RemoveBundles(c, []string{"demo.v1.2.0"}, RemoveOptions{}); err == nil || !strings.Contains(err.Error(), "2 heads") {
		t.Errorf("removing the only head over two skipped bundles: %v", err)
	}
	// The default channel cannot be emptied while others remain.
	c = syntheticPackage("demo", "stable", "1.0.0", "1.1.0")
	c.Channels = append(c.Channels, fbc.Channel{Schema: fbc.SchemaChannel, Name: "fast", Package: "demo",
		Entries: []fbc.ChannelEntry{{Name: "demo.v1.0.0"}}})
	c.Channels[0].Entries = c.Channels[0].Entries[1:2]
	c.Channels[0].Entries[0].Replaces = ""
	if _, err := RemoveBundles(c, []string{"demo.v1.1.0"}, RemoveOptions{AllowEmpty: true}); err == nil || !strings.Contains(err.Error(), "default channel") {
		t.Errorf("emptying the default channel: %v", err)
	}
}

func TestRemoveDropsDeprecationsAndChannels(t *testing.T) {
	c := loadCase(t, "fbc/deprecations-konflux/catalog")
	if _, err := RemoveBundles(c, []string{"konflux-operator.v0.1.3"}, RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, e := range c.Deprecations[0].Entries {
		if e.Reference.Name == "konflux-operator.v0.1.3" {
			t.Error("deprecation of the removed bundle kept")
		}
	}
	assertValid(t, c)
	notes, err := RemoveChannel(c, "konflux-operator", "candidate-v0.0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), `dropped the deprecation of channel "candidate-v0.0"`) {
		t.Errorf("notes: %q", notes)
	}
	assertValid(t, c)
	if _, err := RemoveChannel(c, "konflux-operator", "stable-v0.2"); err == nil || !strings.Contains(err.Error(), "default channel") {
		t.Errorf("removing the default channel: %v", err)
	}
	if err := RemovePackage(c, "konflux-operator"); err != nil || len(c.Bundles)+len(c.Channels)+len(c.Deprecations) != 0 {
		t.Errorf("remove package: %v, left %d bundles", err, len(c.Bundles))
	}
}

// TestRemoveThenAddRoundTrip: removing the head and adding it back gives the catalog back.
func TestRemoveThenAddRoundTrip(t *testing.T) {
	c := loadCase(t, "sqlite/kube-green-replaces/migrate")
	want := writeJSON(t, c)
	head := c.Bundles[findBundle(c, "kube-green", "kube-green.v0.7.1")]
	if _, err := RemoveBundles(c, []string{head.Name}, RemoveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Add(c, []NewBundle{FromBlob(head, []string{"alpha"}, "alpha")}, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := writeJSON(t, c); got != want {
		t.Errorf("remove + add differs:\n%s", firstDiff(got, want))
	}
}
