package diff_test

import (
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
)

// validDemo is conformance/invalid/two-channel-heads repaired: v1.2.0 replaces v1.1.0 again.
func validDemo(t *testing.T) *fbc.Catalog {
	cat := loadCatalog(t, "conformance/invalid/two-channel-heads/catalog")
	editEntry(t, cat, "demo", "stable", "demo.v1.2.0", func(e *fbc.ChannelEntry) { e.Replaces = "demo.v1.1.0" })
	return cat
}

// The broken revision of the corpus (v1.2.0 no longer replaces v1.1.0) against the repaired one:
// the validation error and its upgrade consequences are both reported.
func TestInvalidNewSideTwoHeads(t *testing.T) {
	r := diff.Compare(side("old", validDemo(t)), side("new", loadCatalog(t, "conformance/invalid/two-channel-heads/catalog")))
	assertFindings(t, r,
		"breaking problem-introduced ch=stable f=multiple-heads",
		"info replaces-changed ch=stable b=demo.v1.2.0",
		"breaking multiple-heads-introduced ch=stable",
		"breaking stranded ch=stable b=demo.v1.0.0",
		"breaking stranded ch=stable b=demo.v1.1.0",
	)
	// OLM resolves nothing in a channel with two heads; olmcat reads it from the highest head, whose
	// replaces chain no longer has v1.1.0, so v1.1.0 is never offered and v1.0.0 stays where it is.
	if f := findingOf(t, r, diff.Stranded, "stable", "demo.v1.0.0"); f.New != "upgrades end at demo.v1.0.0" {
		t.Errorf("v1.0.0 ends at %q", f.New)
	}
}

// A side that does not even parse (JSON cut in the middle of the last bundle): the diff runs on the
// blobs before the cut and reports the load error with its file and line; as olmcat validate, it
// checks no rule across the package's blobs (an entry's bundle may be the one cut off) and says so.
func TestTruncatedNewSide(t *testing.T) {
	newSide := openSide(t, sharedPath(t, "conformance/invalid/malformed-json/catalog"))
	r := diff.Compare(side("old", validDemo(t)), newSide)
	assertFindings(t, r,
		"breaking problem-introduced f=load-syntax",
		"warning problem-introduced f=package-not-checked",
		"info bundle-removed b=demo.v1.2.0",
	)
	f := r.Findings[0]
	if !strings.HasPrefix(f.New, "error at demo/catalog.json:") || !strings.Contains(f.Message, "truncated") {
		t.Errorf("load error finding: %+v", f)
	}
	if r.New.Problems != 2 || r.New.Bundles != 2 {
		t.Errorf("new side summary: %+v", r.New)
	}
}

// Fixing opm's "stranded bundle" error (v0.9.0 neither on the replaces chain nor skipped) is a fixed
// problem. OLM's resolver never offered v1.0.0 (skipped by the head, off its replaces chain), the
// only entry that replaces v0.9.0, so for v0.9.0's users the fix is a new path to the head.
func TestInvalidOldSideFixed(t *testing.T) {
	r := diff.Compare(side("old", loadCatalog(t, "conformance/invalid/stranded-bundle/catalog")), side("new", fixedStrandedDemo(t)))
	assertFindings(t, r,
		"info crd-upgrade-unchecked", // the demo bundles carry no manifests
		"info problem-fixed ch=stable f=stranded-bundles",
		"info skips-changed ch=stable b=demo.v1.2.0",
		"info new-path ch=stable b=demo.v0.9.0",
	)
	if f := findingOf(t, r, diff.NewPath, "stable", "demo.v0.9.0"); f.Old != "upgrades end at demo.v0.9.0" || f.New != "reaches demo.v1.2.0 in 1 upgrade" {
		t.Errorf("v0.9.0 path %q -> %q", f.Old, f.New)
	}
}

// fixedStrandedDemo repairs conformance/invalid/stranded-bundle: v1.2.0 skips v0.9.0 as well, so
// its users have a way to the head.
func fixedStrandedDemo(t *testing.T) *fbc.Catalog {
	cat := loadCatalog(t, "conformance/invalid/stranded-bundle/catalog")
	editEntry(t, cat, "demo", "stable", "demo.v1.2.0", func(e *fbc.ChannelEntry) { e.Skips = append(e.Skips, "demo.v0.9.0") })
	return cat
}

// An unchanged but invalid package: its errors persist (a warning: the new catalog still cannot be
// served), located in both revisions.
func TestUnchangedInvalidPackagePersists(t *testing.T) {
	r := diff.Compare(side("old", loadCatalog(t, "conformance/invalid/two-channel-heads/catalog")),
		side("new", loadCatalog(t, "conformance/invalid/two-channel-heads/catalog")))
	assertFindings(t, r, "warning problem-persists ch=stable f=multiple-heads")
	if f := r.Findings[0]; f.Old != "error at demo/catalog.json:6" || f.New != f.Old {
		t.Errorf("persisting problem located %q, %q", f.Old, f.New)
	}
}
