package diff_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc/model"
)

// The index.db revision pairs of ../shared/diffpairs/sqlite, each side converted the way olmcat
// migrate does. Expected findings worked out from the databases and PAIR.json.

func compareDBPair(t *testing.T, pair string) *diff.Report {
	t.Helper()
	dir := sharedPath(t, filepath.Join("diffpairs", "sqlite", pair))
	r := diff.Compare(openPair(t, filepath.Join(dir, "old.db"), filepath.Join(dir, "new.db")))
	if r.Old.Format != "sqlite" || r.New.Format != "sqlite" {
		t.Errorf("formats %s, %s", r.Old.Format, r.New.Format)
	}
	return r
}

// A second channel "stable" is added and becomes the default; the one bundle's CSV changed its
// install strategy.
func TestDBPairClusterAssessmentAddChannel(t *testing.T) {
	r := compareDBPair(t, "cluster-assessment-add-channel")
	const b = "cluster-assessment-operator.v1.0.0"
	assertFindings(t, r,
		"warning default-channel-changed",
		"info bundle-object-changed b="+b+" f=ClusterServiceVersion/"+b,
		"info channel-added ch=stable",
	)
	if f := findingOf(t, r, diff.DefaultChannelChanged, "", ""); f.Old != "alpha" || f.New != "stable" {
		t.Errorf("default channel %q -> %q", f.Old, f.New)
	}
	if f := findingOf(t, r, diff.BundleObjectChanged, "", b); !strings.HasSuffix(f.Message, "changed at spec.install") {
		t.Errorf("CSV change: %s", f.Message)
	}
}

// The package was renamed (cockroach-operator -> cockroachdb-certified): for installed users that
// is a package removed, which is breaking.
func TestDBPairCockroachPackageRename(t *testing.T) {
	r := compareDBPair(t, "cockroach-package-rename")
	assertFindings(t, r,
		"breaking package-removed",
		"info package-added",
	)
	// (beside these, both sides' one bundle is one OLM v1 does not install, being OwnNamespace
	// only: problem-fixed under the old name, problem-introduced under the new one)
	var catalog []diff.Finding
	for _, f := range r.Findings {
		if f.Category == diff.CategoryCatalog {
			catalog = append(catalog, f)
		}
	}
	if len(catalog) != 2 || catalog[0].Package != "cockroach-operator" || catalog[1].Package != "cockroachdb-certified" {
		t.Errorf("packages: %+v", r.Findings)
	}
	introduced := slices.IndexFunc(r.Findings, func(f diff.Finding) bool {
		return f.Kind == diff.ProblemIntroduced && f.Bundle == "cockroach-operator.v1.0.2" && f.Field == "v1-not-installable" &&
			slices.Equal(f.OLM, []model.Generation{model.OLMv1})
	})
	if introduced < 0 {
		t.Errorf("no v1-not-installable problem-introduced for the renamed package's bundle: %v", briefs(r))
	}
	for _, p := range r.Packages {
		if p.Name == "cockroachdb-certified" && (p.Status != diff.StatusAdded || p.ChannelsAdded != 2 || p.BundlesAdded != 1) {
			t.Errorf("added package stat: %+v", p)
		}
	}
}

// The channel's only bundle was replaced by a newer one that neither replaces nor skips it and has
// no skipRange: users of the old bundle are stranded.
func TestDBPairHostOperatorReplaceBundle(t *testing.T) {
	r := compareDBPair(t, "host-operator-replace-bundle")
	const oldB, newB = "toolchain-host-operator.v0.0.655-262-commit-81eff23-cc2ad15", "toolchain-host-operator.v0.0.665-265-commit-73721bf-6e58af6"
	assertFindings(t, r,
		"info bundle-removed b="+oldB,
		"info bundle-added b="+newB,
		"info entry-removed ch=alpha b="+oldB,
		"info entry-added ch=alpha b="+newB,
		"info head-changed ch=alpha",
		"breaking stranded ch=alpha b="+oldB,
	)
	if f := findingOf(t, r, diff.Stranded, "alpha", oldB); f.Old != "is the head "+oldB || f.New != "upgrades end at "+oldB {
		t.Errorf("stranded: %q -> %q", f.Old, f.New)
	}
}

// infrawatch moved both packages to new stable-1.1 default channels; service-telemetry-operator's
// "latest" channel was dropped, and smart-gateway-operator's "latest" lost its v2.1.0 head (now
// v2.0.1, a lower version), stranding v2.1.0's users there. The v1.1.0 and v2.1.0 bundles were
// rebuilt from :stable-1.1 images.
func TestDBPairInfrawatchNewDefaultChannel(t *testing.T) {
	r := compareDBPair(t, "infrawatch-new-default-channel")
	got := map[string]int{}
	for _, f := range r.Findings {
		got[f.Package+" "+string(f.Severity)+" "+string(f.Kind)+" "+f.Channel+" "+f.Bundle]++
	}
	const st, sg = "service-telemetry-operator", "smart-gateway-operator"
	for _, want := range []string{
		st + " warning default-channel-changed  ",
		st + " breaking channel-removed latest ",
		st + " info channel-added stable-1.1 ",
		st + " warning bundle-image-changed  " + st + ".v1.1.0",
		sg + " warning default-channel-changed  ",
		sg + " info channel-added stable-1.1 ",
		sg + " warning bundle-image-changed  " + sg + ".v2.1.0",
		sg + " info entry-removed latest " + sg + ".v2.1.0",
		sg + " warning head-moved-backwards latest ",
		sg + " breaking stranded latest " + sg + ".v2.1.0",
	} {
		if got[want] != 1 {
			t.Errorf("want one %q; findings: %v", want, briefs(r))
		}
	}
	// 17 info: two are crd-upgrade-unchecked (a service-telemetry bundle without manifests, and
	// smart-gateway's apiextensions.k8s.io/v1beta1 CRD, which OLM v1's preflight does not check).
	if v0Summary(r) != "2 breaking, 5 warning, 17 info" {
		t.Errorf("summary of OLM v0's findings %s: %v", v0Summary(r), briefs(r))
	}
	// The dropped channel's head lives on in stable and stable-1.1: its subscribers can switch there.
	if f := findingOf(t, r, diff.ChannelRemoved, "latest", ""); f.Message != `channel "latest" removed with its 2 entries; `+
		`its subscribers stop getting updates unless they switch channel: channels "stable", "stable-1.1" hold its head `+st+`.v1.1.0` {
		t.Errorf("channel-removed message: %s", f.Message)
	}
	if f := findingOf(t, r, diff.HeadMovedBackwards, "latest", ""); f.Package != sg || f.Old != sg+".v2.1.0" || f.New != sg+".v2.0.1" {
		t.Errorf("head: %+v", f)
	}
}

// Mixed formats: an index.db against the FBC that opm migrate made of it is no change at all.
func TestIndexDBAgainstItsOpmMigration(t *testing.T) {
	for _, c := range []string{"kube-green-replaces", "real-infrawatch-05", "community-5ops-replaces"} {
		dir := sharedPath(t, filepath.Join("conformance", "sqlite", c))
		r := diff.Compare(openSide(t, filepath.Join(dir, "input.db")), openSide(t, filepath.Join(dir, "migrate")))
		if len(r.Findings) != 0 || r.Old.Format != "sqlite" || r.New.Format != "fbc" || r.Old.Bundles != r.New.Bundles {
			t.Errorf("%s: index.db vs its migration: %v (%+v, %+v)", c, briefs(r), r.Old, r.New)
		}
	}
}
