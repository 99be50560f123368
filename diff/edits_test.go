package diff_test

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// Pairs made by editing the real conformance catalogs: each edit is one thing catalog maintainers
// do, and the test asserts what the diff says about it.

const (
	subset412 = "conformance/fbc/community-v4.12-bundleobject-subset/catalog"
	jaeger    = "conformance/fbc/ocmirror-jaeger-product-json/catalog"
	trident   = "trident-operator"
	tridentV  = "trident-operator.v"
)

func TestIdenticalCatalogsHaveNoFindings(t *testing.T) {
	for _, rel := range []string{subset412, jaeger, "conformance/fbc/deprecations-konflux/catalog", "conformance/fbc/custom-schema-blobs/catalog"} {
		r := diff.Compare(side("old", loadCatalog(t, rel)), side("new", loadCatalog(t, rel)))
		if len(r.Findings) != 0 || len(r.Upgrades) != 0 {
			t.Errorf("%s against itself: %v, %d upgrades", rel, briefs(r), len(r.Upgrades))
		}
		for _, p := range r.Packages {
			if p.Status != diff.StatusUnchanged {
				t.Errorf("%s: package %s is %s", rel, p.Name, p.Status)
			}
		}
	}
}

// Removing trident v24.10.0 from the middle of a replaces chain (no skipRange anywhere) strands the
// users of v24.2.0 and v24.6.0: v24.6.0 is no longer replaced by anything, so it also becomes a
// second head (OLM then resolves nothing in the channel; olmcat reads it from the highest head, whose
// replaces chain no longer holds v24.6.0, so v24.2.0's users are offered nothing). Users of the removed v24.10.0 itself still upgrade, through v24.10.1's replaces.
func TestRemovalStrandsUsers(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	removeBundle(cat, trident, tridentV+"24.10.0")
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"breaking problem-introduced ch=stable f=multiple-heads",
		"info bundle-removed b="+tridentV+"24.10.0",
		"info entry-removed ch=stable b="+tridentV+"24.10.0",
		"breaking multiple-heads-introduced ch=stable",
		"warning removed-from-path ch=stable b="+tridentV+"24.10.0",
		"breaking stranded ch=stable b="+tridentV+"24.2.0",
		"breaking stranded ch=stable b="+tridentV+"24.6.0",
	)
	f := findingOf(t, r, diff.Stranded, "stable", tridentV+"24.2.0")
	if f.Old != "reaches "+tridentV+"25.2.1 in 5 upgrades" || f.New != "upgrades end at "+tridentV+"24.2.0" {
		t.Errorf("stranded v24.2.0: %q -> %q", f.Old, f.New)
	}
	if u := upgradeOf(t, r, "stable", tridentV+"24.10.0"); u.New.InChannel || !u.New.ReachesHead || u.New.Hops != 3 {
		t.Errorf("users of the removed bundle: %+v", u.New)
	}
	for _, p := range r.Packages {
		if p.Name == trident && (p.BundlesRemoved != 1 || p.Findings.Breaking != 4+v1Counted(r, trident, diff.Breaking)) {
			t.Errorf("trident stat: %+v", p)
		}
	}
}

// Starting from the stranded catalog above, widening the head's skipRange over the old versions
// opens a path for the stranded users again, and shortens v24.10.1's way to the head.
func TestSkipRangeOpensNewPath(t *testing.T) {
	old := loadCatalog(t, subset412)
	removeBundle(old, trident, tridentV+"24.10.0")
	cat := loadCatalog(t, subset412)
	removeBundle(cat, trident, tridentV+"24.10.0")
	editEntry(t, cat, trident, "stable", tridentV+"25.2.1", func(e *fbc.ChannelEntry) { e.SkipRange = ">=24.2.0 <25.2.1" })
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"warning problem-persists ch=stable f=multiple-heads",
		"info skiprange-changed ch=stable b="+tridentV+"25.2.1",
		"info shorter-path ch=stable b="+tridentV+"24.10.1",
		"info new-path ch=stable b="+tridentV+"24.2.0",
		"info new-path ch=stable b="+tridentV+"24.6.0",
	)
	f := findingOf(t, r, diff.NewPath, "stable", tridentV+"24.2.0")
	if f.New != "reaches "+tridentV+"25.2.1 in 1 upgrade" {
		t.Errorf("new path: %q", f.New)
	}
	if f := findingOf(t, r, diff.SkipRangeChanged, "stable", tridentV+"25.2.1"); f.Old != "" || f.New != ">=24.2.0 <25.2.1" {
		t.Errorf("skipRange change %q -> %q", f.Old, f.New)
	}
}

// Narrowing the jaeger head's skipRange from >=1.13.0 to >=1.47.0 makes older users walk through
// v1.47.1-5 first: one more upgrade than before, a warning each.
func TestNarrowedSkipRangeLengthensPaths(t *testing.T) {
	old := loadCatalog(t, jaeger)
	cat := loadCatalog(t, jaeger)
	const j = "jaeger-operator.v"
	editEntry(t, cat, "jaeger-product", "stable", j+"1.51.0-1", func(e *fbc.ChannelEntry) { e.SkipRange = ">=1.47.0 <1.51.0-1" })
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"info skiprange-changed ch=stable b="+j+"1.51.0-1",
		"warning longer-path ch=stable b="+j+"1.30.2",
		"warning longer-path ch=stable b="+j+"1.34.1-5",
		"warning longer-path ch=stable b="+j+"1.42.0-5",
		"warning longer-path ch=stable b="+j+"1.42.0-5-0.1687199951.p",
		// OLM v0 now takes these users to v1.47.1-5, whose CRD OLM v1's preflight refuses from each
		// of them (fbc/crdsafety/testdata/preflight-verdicts.jsonl: 292, 301, 10 and 10 failures)
		"warning crd-upgrade-risky ch=stable b="+j+"1.47.1-5 f=CustomResourceDefinition/jaegers.jaegertracing.io",
		"warning crd-upgrade-risky ch=stable b="+j+"1.47.1-5 f=CustomResourceDefinition/jaegers.jaegertracing.io",
		"warning crd-upgrade-risky ch=stable b="+j+"1.47.1-5 f=CustomResourceDefinition/jaegers.jaegertracing.io",
		"warning crd-upgrade-risky ch=stable b="+j+"1.47.1-5 f=CustomResourceDefinition/jaegers.jaegertracing.io",
	)
	if f := findingOf(t, r, diff.LongerPath, "stable", j+"1.30.2"); f.Old != "1 upgrade to "+j+"1.51.0-1" || f.New != "2 upgrades to "+j+"1.51.0-1" {
		t.Errorf("longer path %q -> %q", f.Old, f.New)
	}
}

// Pulling the newest trident release moves the head back to v25.2.0; users already on v25.2.1
// have nowhere to go. (The removed head is no "step on the way": its removal is the head change.)
func TestHeadMovedBackwards(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	removeBundle(cat, trident, tridentV+"25.2.1")
	r := diff.Compare(side("old", old), side("new", cat))
	assertFindings(t, r,
		"info bundle-removed b="+tridentV+"25.2.1",
		"info entry-removed ch=stable b="+tridentV+"25.2.1",
		"warning head-moved-backwards ch=stable",
		"breaking stranded ch=stable b="+tridentV+"25.2.1",
	)
	if f := findingOf(t, r, diff.Stranded, "stable", tridentV+"25.2.1"); f.Old != "is the head "+tridentV+"25.2.1" || f.New != "upgrades end at "+tridentV+"25.2.1" {
		t.Errorf("stranded old head: %q -> %q", f.Old, f.New)
	}
}

// Making the oldest bundle replace the head closes a loop: no head, a cycle, and every user stranded.
func TestCycleIntroduced(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	editEntry(t, cat, "dell-csm-operator", "stable", "dell-csm-operator.v1.2.0", func(e *fbc.ChannelEntry) { e.Replaces = "dell-csm-operator.v1.3.0" })
	r := diff.Compare(side("old", old), side("new", cat))
	kinds := map[diff.Kind]int{}
	for _, f := range r.Findings {
		kinds[f.Kind]++
	}
	if kinds[diff.CycleIntroduced] != 1 || kinds[diff.Stranded] != 2 || kinds[diff.ReplacesChanged] != 1 || kinds[diff.ProblemIntroduced] == 0 {
		t.Errorf("findings: %v", briefs(r))
	}
	if f := findingOf(t, r, diff.CycleIntroduced, "stable", "dell-csm-operator.v1.2.0"); !strings.Contains(f.New, "dell-csm-operator.v1.3.0") {
		t.Errorf("cycle path %q", f.New)
	}
}

// Bundle content edits, each judged by what it means rather than by its text.
func TestBundleContentChanges(t *testing.T) {
	old := loadCatalog(t, subset412)
	cat := loadCatalog(t, subset412)
	b := bundleOf(t, cat, "dell-csm-operator", "dell-csm-operator.v1.3.0")
	b.Image = strings.Replace(b.Image, "@sha256:", "@sha256:0", 1)[:len(b.Image)] // another digest, still 64 hex digits
	var props []fbc.Property
	droppedGVK := false
	for _, p := range b.Properties {
		switch {
		case p.Type == "olm.gvk" && !droppedGVK:
			droppedGVK = true
			continue
		case p.Type == "olm.package":
			// same value, different formatting and key order: not a change
			p.Value = []byte(`{ "version": "1.3.0",  "packageName": "dell-csm-operator" }`)
		}
		props = append(props, p)
	}
	props = append(props, fbc.Property{Type: "olm.package.required", Value: []byte(`{"packageName":"cert-manager","versionRange":">=1.0.0"}`)})
	b.Properties = props
	r := diff.Compare(side("old", old), side("new", cat))
	const bn = "dell-csm-operator.v1.3.0"
	assertFindings(t, r,
		"warning bundle-image-changed b="+bn,
		"warning dependency-added b="+bn+" f=olm.package.required",
		"warning provided-api-removed b="+bn+" f=olm.gvk",
		// the head now requires cert-manager, which the catalog does not hold
		"warning head-requirement-not-in-catalog ch=stable b="+bn,
	)
	if f := findingOf(t, r, diff.ProvidedAPIRemoved, "", bn); !strings.Contains(f.Old, "/") {
		t.Errorf("provided API named %q, want group/version/Kind", f.Old)
	}
}
