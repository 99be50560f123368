package ops

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

func modelOf(t *testing.T, c *fbc.Catalog) *model.Model {
	t.Helper()
	m, issues := model.FromCatalog(c)
	if err := issues.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestInspectPackages(t *testing.T) {
	m := modelOf(t, loadCase(t, "sqlite/community-5ops-semver/migrate"))
	r := InspectPackages(m)
	out, _ := json.Marshal(r)
	for _, want := range []string{
		`{"name":"etcd","channels":["clusterwide-alpha","singlenamespace-alpha"],"defaultChannel":"singlenamespace-alpha"}`,
		`{"name":"microcks","channels":["alpha","stable"],"defaultChannel":"stable"}`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("inspect packages lacks %s:\n%s", want, out)
		}
	}
	if len(r.Packages) != 5 {
		t.Errorf("%d packages, want 5", len(r.Packages))
	}
}

func TestInspectPackageEdges(t *testing.T) {
	m := modelOf(t, loadCase(t, "fbc/deprecations-konflux/catalog"))
	r, err := InspectPackage(m, "konflux-operator")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Deprecation, "konflux-operator package is deprecated") {
		t.Errorf("package deprecation not surfaced: %q", r.Deprecation)
	}
	var cand ChannelReport
	for _, ch := range r.Channels {
		if ch.Name == "candidate-v0.0" {
			cand = ch
		}
	}
	if cand.Head != "konflux-operator.v0.0.15-rc.7" || !strings.Contains(cand.Deprecation, "candidate-v0.0 is deprecated") {
		t.Fatalf("candidate-v0.0: head %q deprecation %q", cand.Head, cand.Deprecation)
	}
	// oldest first; the head upgrades from both older release candidates by skips
	if len(cand.Bundles) != 3 || cand.Bundles[0].CSV != "konflux-operator.v0.0.15-rc.1" {
		t.Fatalf("bundles: %+v", cand.Bundles)
	}
	head := cand.Bundles[2]
	got, _ := json.Marshal(head.Replaces)
	want := `[{"version":"0.0.15-rc.1","csv":"konflux-operator.v0.0.15-rc.1","via":["skips"]},{"version":"0.0.15-rc.3","csv":"konflux-operator.v0.0.15-rc.3","via":["skips"]}]`
	if string(got) != want {
		t.Errorf("head replaces %s\nwant %s", got, want)
	}
	if !strings.Contains(head.Deprecation, "release candidate withdrawn") || head.Replacements != nil {
		t.Errorf("head: deprecation %q replacements %v", head.Deprecation, head.Replacements)
	}
	if r := cand.Bundles[0].Replacements; len(r) != 1 || r[0].CSV != head.CSV {
		t.Errorf("rc.1 replacements: %+v", r)
	}
	if _, err := InspectPackage(m, "nope"); err == nil || !strings.Contains(err.Error(), "konflux-operator") {
		t.Errorf("unknown package: %v", err)
	}
}

func TestInspectSkipRangeEdges(t *testing.T) {
	c := syntheticPackage("demo", "stable", "1.0.0", "1.1.0", "1.2.0")
	c.Channels[0].Entries[2].SkipRange = ">=1.0.0 <1.2.0"
	r, err := InspectPackage(modelOf(t, c), "demo")
	if err != nil {
		t.Fatal(err)
	}
	b := r.Channels[0].Bundles[2]
	got, _ := json.Marshal(b.Replaces)
	want := `[{"version":"1.0.0","csv":"demo.v1.0.0","via":["skipRange"]},{"version":"1.1.0","csv":"demo.v1.1.0","via":["replaces","skipRange"]}]`
	if string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
