package ops

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

const conformance = "../../../shared/conformance"

func loadCase(t *testing.T, rel string) *fbc.Catalog {
	t.Helper()
	dir := filepath.Join(conformance, rel)
	c, err := fbc.Load(dir)
	if err != nil {
		if len(c.Packages) == 0 {
			t.Skipf("conformance catalog %s not loadable (corpus absent?): %v", dir, err)
		}
		t.Fatalf("load %s: %v", dir, err)
	}
	return c
}

// graphOf renders a channel's entries as "name<replaces|skips|skipRange" lines sorted by name, the
// form in which two graphs are compared.
func graphOf(ch fbc.Channel) string {
	lines := make([]string, 0, len(ch.Entries))
	for _, e := range ch.Entries {
		lines = append(lines, e.Name+" < "+e.Replaces+" | "+strings.Join(e.Skips, ",")+" | "+e.SkipRange)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestRebuildSemverMatchesOpm: opm built community-5ops-semver in semver mode; rebuilding every
// channel of its migrated catalog from the bundles' versions gives opm's graph back.
func TestRebuildSemverMatchesOpm(t *testing.T) {
	c := loadCase(t, "sqlite/community-5ops-semver/migrate")
	assertRebuildMatches(t, c, ModeSemver, nil)
}

// TestRebuildSkipPatchMatchesOpm: the same for semver-skippatch, on the bundles opm accepted.
// Where opm's skippatch graph is wrong we differ, and say so: in etcd's clusterwide-alpha opm
// made 0.9.4-clusterwide skip both older 0.9 bundles with no replaces at all; we make it replace
// the next lower 0.9 bundle (this is the lowest minor of the channel) and skip the other, which
// gives OLM the same upgrade edges.
func TestRebuildSkipPatchMatchesOpm(t *testing.T) {
	c := loadCase(t, "sqlite/community-5ops-semver-skippatch/migrate")
	assertRebuildMatches(t, c, ModeSemverSkipPatch, map[string]string{
		"etcd/clusterwide-alpha": "etcdoperator.v0.9.0 <  |  | \n" +
			"etcdoperator.v0.9.2-clusterwide <  |  | \n" +
			"etcdoperator.v0.9.4-clusterwide < etcdoperator.v0.9.2-clusterwide | etcdoperator.v0.9.0 | ",
	})
}

func assertRebuildMatches(t *testing.T, c *fbc.Catalog, mode Mode, exceptions map[string]string) {
	t.Helper()
	want := map[string]string{}
	for _, ch := range c.Channels {
		want[ch.Package+"/"+ch.Name] = graphOf(ch)
	}
	for k, v := range exceptions {
		want[k] = v
	}
	for _, ch := range slices.Clone(c.Channels) {
		if err := RebuildChannel(c, ch.Package, ch.Name, mode); err != nil {
			t.Fatalf("rebuild %s/%s: %v", ch.Package, ch.Name, err)
		}
	}
	for _, ch := range c.Channels {
		key := ch.Package + "/" + ch.Name
		if got := graphOf(ch); got != want[key] {
			t.Errorf("%s (%s):\n got:\n%s\nwant:\n%s", key, mode, got, want[key])
		}
	}
}

func TestSkipPatchDesignExample(t *testing.T) {
	// 1.0.0, 1.1.0, 1.1.1, 1.1.2, 1.2.0: the design's example, plus a first minor.
	got := entriesFor(t, ModeSemverSkipPatch, "1.1.2", "1.0.0", "1.1.0", "1.2.0", "1.1.1")
	want := []string{
		"v1.0.0 <  | ",
		"v1.1.0 <  | ",
		"v1.1.1 <  | ",
		"v1.1.2 < v1.0.0 | v1.1.1,v1.1.0",
		"v1.2.0 < v1.1.2 | ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	got = entriesFor(t, ModeSemver, "1.1.2", "1.0.0", "1.1.0", "1.2.0", "1.1.1")
	want = []string{"v1.0.0 <  | ", "v1.1.0 < v1.0.0 | ", "v1.1.1 < v1.1.0 | ", "v1.1.2 < v1.1.1 | ", "v1.2.0 < v1.1.2 | "}
	if !slices.Equal(got, want) {
		t.Errorf("semver: got %q\nwant %q", got, want)
	}
}

func TestSemverRejectsBadVersions(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0", "1.2")
	err := RebuildChannel(c, "demo", "stable", ModeSemver)
	if err == nil || !strings.Contains(err.Error(), `"1.2", which is not semver`) {
		t.Fatalf("want a not-semver error naming the version, got %v", err)
	}
	c = syntheticPackage("demo", "stable", "1.0.0", "1.0.0")
	c.Bundles[1].Name = "demo.v1.0.0-again"
	c.Channels[0].Entries[1].Name = "demo.v1.0.0-again"
	if err := RebuildChannel(c, "demo", "stable", ModeSemver); err == nil || !strings.Contains(err.Error(), "same version") {
		t.Fatalf("want a same-version error, got %v", err)
	}
}

func entriesFor(t *testing.T, mode Mode, versions ...string) []string {
	t.Helper()
	c := syntheticPackage("p", "stable", versions...)
	if err := RebuildChannel(c, "p", "stable", mode); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range c.Channels[0].Entries {
		out = append(out, strings.TrimPrefix(e.Name, "p.")+" < "+strings.TrimPrefix(e.Replaces, "p.")+" | "+
			strings.ReplaceAll(strings.Join(e.Skips, ","), "p.", ""))
	}
	return out
}
