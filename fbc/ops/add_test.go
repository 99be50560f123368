package ops

import (
	"bytes"
	"math/rand"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
)

func writeJSON(t *testing.T, c *fbc.Catalog) string {
	t.Helper()
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// blobsAsNewBundles turns every bundle of a catalog into a NewBundle whose channels are the
// channels that hold it and whose default channel is the package's.
func blobsAsNewBundles(c *fbc.Catalog) []NewBundle {
	var out []NewBundle
	for _, b := range c.Bundles {
		var chans []string
		for _, ch := range c.Channels {
			if ch.Package == b.Package && findEntry(&ch, b.Name) >= 0 {
				chans = append(chans, ch.Name)
			}
		}
		def := c.Packages[findPackage(c, b.Package)].DefaultChannel
		out = append(out, FromBlob(b, chans, def))
	}
	return out
}

// TestAddSeriesReproducesOpmReplacesIndex: opm built kube-green-replaces by adding the ten
// kube-green bundles one at a time in replaces mode. Adding the same bundles, in the same order,
// to an empty catalog gives the catalog opm migrated, byte for byte: the linear chain
// v0.3.0 <- ... <- v0.7.1, the default channel and the package icon of the head.
func TestAddSeriesReproducesOpmReplacesIndex(t *testing.T) {
	want := loadCase(t, "sqlite/kube-green-replaces/migrate")
	got := &fbc.Catalog{}
	for _, nb := range blobsAsNewBundles(want) {
		if _, err := Add(got, []NewBundle{nb}, AddOptions{Mode: ModeReplaces}); err != nil {
			t.Fatalf("add %s: %v", nb.Blob.Name, err)
		}
	}
	if g, w := writeJSON(t, got), writeJSON(t, want); g != w {
		t.Errorf("catalog built by adds differs from opm's:\n%s", firstDiff(g, w))
	}
}

// TestAddSemverAnyOrderMatchesOpm: adding the bundles of opm's semver-mode index in a random order
// gives opm's graph, because semver mode places each bundle by version.
func TestAddSemverAnyOrderMatchesOpm(t *testing.T) {
	want := loadCase(t, "sqlite/community-5ops-semver/migrate")
	nbs := blobsAsNewBundles(want)
	rand.New(rand.NewSource(7)).Shuffle(len(nbs), func(i, j int) { nbs[i], nbs[j] = nbs[j], nbs[i] })
	got := &fbc.Catalog{}
	for _, nb := range nbs {
		if _, err := Add(got, []NewBundle{nb}, AddOptions{Mode: ModeSemver}); err != nil {
			t.Fatalf("add %s: %v", nb.Blob.Name, err)
		}
	}
	wantGraphs := map[string]string{}
	for _, ch := range want.Channels {
		wantGraphs[ch.Package+"/"+ch.Name] = graphOf(ch)
	}
	for _, ch := range got.Channels {
		if g := graphOf(ch); g != wantGraphs[ch.Package+"/"+ch.Name] {
			t.Errorf("%s/%s:\n got:\n%s\nwant:\n%s", ch.Package, ch.Name, g, wantGraphs[ch.Package+"/"+ch.Name])
		}
	}
	if len(got.Channels) != len(want.Channels) {
		t.Errorf("got %d channels, want %d", len(got.Channels), len(want.Channels))
	}
	for _, p := range want.Packages {
		if gp := got.Packages[findPackage(got, p.Name)]; gp.DefaultChannel != p.DefaultChannel {
			t.Errorf("package %s: default channel %q, opm has %q", p.Name, gp.DefaultChannel, p.DefaultChannel)
		}
	}
}

func TestAddBundleDirToExistingCatalog(t *testing.T) {
	dir := filepath.Join(conformance, "bundles", "kube-green-0.7.1", "bundle")
	c := loadCase(t, "sqlite/kube-green-replaces/migrate")
	// Take v0.7.1 out, then add it back from its bundle directory.
	c.Bundles = slices.DeleteFunc(c.Bundles, func(b fbc.Bundle) bool { return b.Name == "kube-green.v0.7.1" })
	ch := &c.Channels[0]
	ch.Entries = slices.DeleteFunc(ch.Entries, func(e fbc.ChannelEntry) bool { return e.Name == "kube-green.v0.7.1" })
	b, err := bundledir.Parse(dir)
	if err != nil {
		t.Fatal(err)
	}
	nb, err := FromBundleDir(b, "quay.io/conformance/kube-green-bundle:v0.7.1")
	if err != nil {
		t.Fatal(err)
	}
	notes, err := Add(c, []NewBundle{nb}, AddOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(notes, "\n"), `replaces head "kube-green.v0.7.0"`) {
		t.Errorf("notes do not say the head was replaced: %q", notes)
	}
	want := loadCase(t, "sqlite/kube-green-replaces/migrate")
	if g, w := writeJSON(t, c), writeJSON(t, want); g != w {
		t.Errorf("catalog differs from opm's after re-adding v0.7.1:\n%s", firstDiff(g, w))
	}
}

func TestAddRefusals(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0", "1.1.0")
	before := writeJSON(t, c)
	dup := FromBlob(c.Bundles[0], []string{"stable"}, "")
	if _, err := Add(c, []NewBundle{dup}, AddOptions{}); err == nil || !strings.Contains(err.Error(), "already has a bundle") {
		t.Errorf("duplicate add: %v", err)
	}
	nb := FromBlob(newBlob("demo", "2.0.0"), nil, "")
	if _, err := Add(c, []NewBundle{nb}, AddOptions{}); err == nil || !strings.Contains(err.Error(), "names no channel") {
		t.Errorf("add without channel: %v", err)
	}
	bad := FromBlob(newBlob("demo", "2.0"), []string{"stable"}, "")
	if _, err := Add(c, []NewBundle{bad}, AddOptions{Mode: ModeSemver}); err == nil || !strings.Contains(err.Error(), "not semver") {
		t.Errorf("add of a non-semver version in semver mode: %v", err)
	}
	// two heads: replaces mode cannot tell what the new bundle replaces
	c.Channels[0].Entries[1].Replaces = ""
	before2 := writeJSON(t, c)
	if _, err := Add(c, []NewBundle{FromBlob(newBlob("demo", "3.0.0"), []string{"stable"}, "")}, AddOptions{}); err == nil || !strings.Contains(err.Error(), "2 heads") {
		t.Errorf("add to a two-headed channel: %v", err)
	}
	if writeJSON(t, c) != before2 {
		t.Error("a failed add changed the catalog")
	}
	_ = before
}

func TestAddDefaultChannelFromNewestOnly(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0", "2.0.0")
	older := FromBlob(newBlob("demo", "1.5.0"), []string{"fast"}, "fast")
	if _, err := Add(c, []NewBundle{older}, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := c.Packages[0].DefaultChannel; d != "stable" {
		t.Errorf("an older bundle changed the default channel to %q", d)
	}
	newer := FromBlob(newBlob("demo", "3.0.0"), []string{"fast"}, "fast")
	if _, err := Add(c, []NewBundle{newer}, AddOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := c.Packages[0].DefaultChannel; d != "fast" {
		t.Errorf("the newest bundle did not set the default channel: %q", d)
	}
	ch := c.Channels[findChannel(c, "demo", "fast")]
	if graphOf(ch) != "demo.v1.5.0 <  |  | \ndemo.v3.0.0 < demo.v1.5.0 |  | " {
		t.Errorf("fast channel: %s", graphOf(ch))
	}
}

func newBlob(pkg, version string) fbc.Bundle {
	return syntheticPackage(pkg, "x", version).Bundles[0]
}

// firstDiff shows the first differing line of two texts with a little context.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + trunc(gl) + "\nwant: " + trunc(wl)
		}
	}
	return "(no difference)"
}

func trunc(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
