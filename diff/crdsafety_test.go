package diff_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// crdFindings lists the CRD upgrade safety findings as "severity kind olm [ch=C] old -> new f=FIELD".
func crdFindings(r *diff.Report) []string {
	var out []string
	for _, f := range r.Findings {
		switch f.Kind {
		case diff.CRDUpgradeUnsafe, diff.CRDUpgradeRisky, diff.CRDUpgradeUnchecked:
		default:
			continue
		}
		parts := []string{string(f.Severity), string(f.Kind)}
		for _, g := range f.OLM {
			parts = append(parts, "olm="+string(g))
		}
		if f.Channel != "" {
			parts = append(parts, "ch="+f.Channel)
		}
		if f.Old != "" {
			parts = append(parts, f.Old+" -> "+f.New)
		}
		if f.Field != "" {
			parts = append(parts, "f="+f.Field)
		}
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func assertCRDFindings(t *testing.T, r *diff.Report, want ...string) {
	t.Helper()
	got := crdFindings(r)
	if !slices.Equal(got, want) {
		t.Errorf("CRD findings:\ngot:  %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// odfPreflight are the failures operator-controller's preflight gives for
// odf-node-recovery-operator.v1.0.0 -> v1.1.0 (fbc/crdsafety/testdata/preflight-verdicts.jsonl,
// recorded from its code; also conformance/olmv1's crdUpgradeSafety of that upgrade), sorted.
var odfPreflight = []string{
	"existingFieldRemoval: removed field : v1alpha1.^.status.osdIDs",
	"existingFieldRemoval: removed field : v1alpha1.^.status.osdIDs.items",
	`v1alpha1: ^.status.nodeDevice.items: required: new required fields: [failingOSDID]`,
	`v1alpha1: ^.status.osdIDs.items: type: type changed : "string" -> ""`,
	`v1alpha1: ^.status.osdIDs: type: type changed : "array" -> ""`,
}

// A whole catalog added: every upgrade edge is new. Of the pairs the preflight fails (the
// recordings), those that are edges are reported: odf v1.0.0 -> v1.1.0 (replaces, in channel
// alpha) and visionone v0.0.1 -> v0.0.2 (replaces in alpha; v0.0.1 is not in stable). The other
// failing pairs are downgrades (kairos v2.1.x -> v2.0.1, odf v1.1.0 -> v1.0.0) or pairs no edge
// joins (visionone v0.0.1 -> v0.0.3...), and every other edge passes.
func TestCRDSafetyWholeCatalogAdded(t *testing.T) {
	cat := loadCatalog(t, subset412)
	r := diff.Compare(side("old", &fbc.Catalog{}), side("new", cat))
	const odfCRD, visionCRD = "f=CustomResourceDefinition/noderecoveries.odf.openshift.io", "f=CustomResourceDefinition/visiononecontainersecurities.container-security.trendmicro.com"
	assertCRDFindings(t, r,
		"breaking crd-upgrade-unsafe olm=v1 odf-node-recovery-operator.v1.0.0 -> odf-node-recovery-operator.v1.1.0 "+odfCRD,
		"warning crd-upgrade-risky olm=v0 ch=alpha odf-node-recovery-operator.v1.0.0 -> odf-node-recovery-operator.v1.1.0 "+odfCRD,
		"breaking crd-upgrade-unsafe olm=v1 visionone-containersecurity.v0.0.1 -> visionone-containersecurity.v0.0.2 "+visionCRD,
		"warning crd-upgrade-risky olm=v0 ch=alpha visionone-containersecurity.v0.0.1 -> visionone-containersecurity.v0.0.2 "+visionCRD,
	)
	f := findingOf(t, r, diff.CRDUpgradeUnsafe, "", "odf-node-recovery-operator.v1.1.0")
	want := `OLM v1 refuses to upgrade "odf-node-recovery-operator.v1.0.0" to "odf-node-recovery-operator.v1.1.0": validating upgrade for CRD "noderecoveries.odf.openshift.io": ` + strings.Join(odfPreflight, "; ")
	if f.Message != want || f.Package != "odf-node-recovery-operator" || !slices.Equal(f.OLM, []model.Generation{model.OLMv1}) {
		t.Errorf("finding %+v\nwant message %s", f, want)
	}
	risky := findingOf(t, r, diff.CRDUpgradeRisky, "alpha", "odf-node-recovery-operator.v1.1.0")
	if !strings.HasPrefix(risky.Message, `OLM v0 upgrades "odf-node-recovery-operator.v1.0.0" to "odf-node-recovery-operator.v1.1.0" in channel "alpha" unless an existing noderecoveries.odf.openshift.io object fails the new schema (it runs no preflight); OLM v1's preflight refuses this change: validating upgrade for CRD "noderecoveries.odf.openshift.io": `) ||
		!strings.HasSuffix(risky.Message, strings.Join(odfPreflight, "; ")) {
		t.Errorf("risky message: %s", risky.Message)
	}
	// visionone's CRD loses 71 fields: the message quotes the first 12 failures and counts the rest.
	v := findingOf(t, r, diff.CRDUpgradeUnsafe, "", "visionone-containersecurity.v0.0.2")
	if !strings.HasSuffix(v.Message, "; and 59 more") || strings.Count(v.Message, "; ") != 12 {
		t.Errorf("visionone message: %s", v.Message)
	}
}

// Only what the change adds or touches is judged: releasing trident v25.2.1 checks the edges to
// it (they pass, as the recordings say), not the failing edges of odf and visionone that were
// there before.
func TestCRDSafetyOnlyNewEdges(t *testing.T) {
	oldCat, newCat := loadCatalog(t, subset412), loadCatalog(t, subset412)
	removeBundle(oldCat, "trident-operator", "trident-operator.v25.2.1")
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	if len(r.Findings) == 0 {
		t.Fatal("no findings: the release was not seen")
	}
	assertCRDFindings(t, r)
}

// An edge that was there before is judged again when a bundle's CRD changes: odf v1.1.0 first
// shipped v1.0.0's CRD unchanged (a safe upgrade), then the CRD the catalog has now.
func TestCRDSafetyChangedCRD(t *testing.T) {
	oldCat, newCat := loadCatalog(t, subset412), loadCatalog(t, subset412)
	from, to := bundleOf(t, oldCat, "odf-node-recovery-operator", "odf-node-recovery-operator.v1.0.0"), bundleOf(t, oldCat, "odf-node-recovery-operator", "odf-node-recovery-operator.v1.1.0")
	crdOf := func(b *fbc.Bundle) int {
		for i, p := range b.Properties {
			if p.Type == "olm.bundle.object" && strings.Contains(string(p.Value), crdBase64Kind) {
				return i
			}
		}
		t.Fatalf("%s carries no CRD", b.Name)
		return -1
	}
	props := slices.Clone(to.Properties)
	props[crdOf(to)] = from.Properties[crdOf(from)]
	to.Properties = props
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	assertCRDFindings(t, r,
		"breaking crd-upgrade-unsafe olm=v1 odf-node-recovery-operator.v1.0.0 -> odf-node-recovery-operator.v1.1.0 f=CustomResourceDefinition/noderecoveries.odf.openshift.io",
		"warning crd-upgrade-risky olm=v0 ch=alpha odf-node-recovery-operator.v1.0.0 -> odf-node-recovery-operator.v1.1.0 f=CustomResourceDefinition/noderecoveries.odf.openshift.io",
	)
	// and the other way round the edge is safe: no finding.
	assertCRDFindings(t, diff.Compare(side("new", newCat), side("old", oldCat)))
}

// "kind":"CustomResourceDefinition" as the start of base64 data may hold it: the CRD manifests of
// the subset are JSON that begins with {"apiVersion":"apiextensions.k8s.io/v1","kind":"Cust...
const crdBase64Kind = "eyJhcGlWZXJzaW9uIjoiYXBpZXh0ZW5zaW9ucy5rOHMuaW8vdjEiLCJraW5kIjoiQ3VzdG9tUmVzb3VyY2VEZWZpbml0aW9uIi"

// Bundles described by olm.csv.metadata carry no CRDs: one catalog-wide finding says how many
// new or touched edges went unchecked. victoriametrics' pair rewrote its bundles from
// olm.bundle.object to olm.csv.metadata, which touches every edge.
func TestCRDSafetyUncheckedWithoutManifests(t *testing.T) {
	dir := sharedPath(t, "diffpairs/fbc/victoriametrics-v4.18-bundleobject-to-csvmetadata")
	r := diff.Compare(openSide(t, dir+"/old"), openSide(t, dir+"/new"))
	got := crdFindings(r)
	if !slices.Equal(got, []string{"info crd-upgrade-unchecked"}) {
		t.Fatalf("CRD findings: %v", got)
	}
	f := r.Findings[0]
	if f.Kind != diff.CRDUpgradeUnchecked || f.Package != "" || !strings.Contains(f.Message, "in 1 package (victoriametrics-operator): their bundles carry no manifests (no olm.bundle.object properties") {
		t.Errorf("finding %+v", f)
	}
	// A csv.metadata catalog's new release: its edges cannot be checked either.
	dir = sharedPath(t, "diffpairs/fbc/hive-operator-v4.18-consecutive")
	assertCRDFindings(t, diff.Compare(openSide(t, dir+"/old"), openSide(t, dir+"/new")), "info crd-upgrade-unchecked")
}
