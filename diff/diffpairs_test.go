package diff_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
)

// The real revision pairs of ../shared/diffpairs/fbc. The expected findings were worked out by
// reading both revisions (see each PAIR.json for what the upstream commit did).

func comparePair(t *testing.T, pair string) *diff.Report {
	t.Helper()
	dir := sharedPath(t, filepath.Join("diffpairs", "fbc", pair))
	return diff.Compare(openPair(t, filepath.Join(dir, "old"), filepath.Join(dir, "new")))
}

func TestPairHiveOperatorConsecutive(t *testing.T) {
	r := comparePair(t, "hive-operator-v4.18-consecutive")
	const added, prev = "hive-operator.v1.2.5274-c04833d", "hive-operator.v1.2.5258-3a29cc3"
	assertFindings(t, r,
		"info crd-upgrade-unchecked", // csv.metadata bundles: no CRD in the catalog to check
		"info bundle-added b="+added,
		"info entry-added ch=alpha b="+added,
		"info head-changed ch=alpha",
	)
	if f := findingOf(t, r, diff.EntryAdded, "alpha", added); f.New != "replaces "+prev {
		t.Errorf("new entry's edges = %q, want replaces %s", f.New, prev)
	}
	if f := findingOf(t, r, diff.HeadChanged, "alpha", ""); f.Old != prev || f.New != added {
		t.Errorf("head change = %s -> %s", f.Old, f.New)
	}
	// The old head now upgrades to the new bundle; everyone else still reaches the head, one step further.
	u := upgradeOf(t, r, "alpha", prev)
	if !cmp.Equal(u.New.Targets, []string{added}) || !u.New.ReachesHead || u.New.Hops != 1 || u.Old.Hops != 0 {
		t.Errorf("old head's upgrade: %+v", u)
	}
	if r.Old.Bundles != 105 || r.New.Bundles != 106 {
		t.Errorf("bundle counts %d -> %d, PAIR.json says 105 -> 106", r.Old.Bundles, r.New.Bundles)
	}
}

func TestPairProjectQuayConsecutive(t *testing.T) {
	r := comparePair(t, "project-quay-v4.20-consecutive")
	assertFindings(t, r,
		"info crd-upgrade-unchecked", // csv.metadata bundles: no CRD in the catalog to check
		"info bundle-added b=quay-operator.v3.17.4",
		"info entry-added ch=stable-3.17 b=quay-operator.v3.17.4",
		"info head-changed ch=stable-3.17",
	)
	if f := findingOf(t, r, diff.HeadChanged, "stable-3.17", ""); f.Old != "quay-operator.v3.17.3" || f.New != "quay-operator.v3.17.4" {
		t.Errorf("head change = %s -> %s", f.Old, f.New)
	}
	if len(r.Packages) != 1 || r.Packages[0].BundlesAdded != 1 || r.Packages[0].Status != diff.StatusChanged {
		t.Errorf("package stat: %+v", r.Packages)
	}
}

// The 1.30-nightly channel and its only bundle were pruned: its subscribers lose their channel
// (breaking). The bundle is no step on any remaining channel's path (1.31-nightly's first entry
// replaces it, but it was never an entry there), so nobody else is stranded.
func TestPairSailOperatorPruneChannel(t *testing.T) {
	r := comparePair(t, "sailoperator-v4.18-prune-channel")
	const pruned = "sailoperator.v1.30.0-nightly-2026-08-04"
	assertFindings(t, r,
		"info bundle-removed b="+pruned,
		"breaking channel-removed ch=1.30-nightly",
	)
	// Its subscribers can switch: 1.31-nightly's first entry replaces the pruned head, and the
	// stable channels' skipRange >=1.0.0 <1.30.0 covers 1.30.0-nightly (a prerelease of 1.30.0).
	f := findingOf(t, r, diff.ChannelRemoved, "1.30-nightly", "")
	if f.Old != pruned {
		t.Errorf("removed channel's head = %q", f.Old)
	}
	if want := `channel "1.30-nightly" removed with its 1 entry; its subscribers stop getting updates unless they switch channel: ` +
		`channels "1.31-nightly", "stable", "stable-1.30" offer its head ` + pruned + ` an upgrade`; f.Message != want || f.New != "" {
		t.Errorf("channel-removed message:\n%s\nwant\n%s (new %q)", f.Message, want, f.New)
	}
	if summary(r) != "1 breaking, 0 warning, 1 info" {
		t.Errorf("summary %s", summary(r))
	}
}

// Two bundles switch from 19 olm.bundle.object properties each to one olm.csv.metadata: one
// finding per bundle, and no metadata difference (the CSV says the same in both forms).
func TestPairVictoriaMetricsRepresentation(t *testing.T) {
	r := comparePair(t, "victoriametrics-v4.18-bundleobject-to-csvmetadata")
	const p = "victoriametrics-operator."
	assertFindings(t, r,
		"info crd-upgrade-unchecked", // csv.metadata bundles: no CRD in the catalog to check
		"info bundle-representation-changed b="+p+"v0.52.0",
		"info bundle-representation-changed b="+p+"v0.53.0",
		"info bundle-added b="+p+"v0.54.1",
		"info bundle-added b="+p+"v0.55.0",
		"info bundle-added b="+p+"v0.56.0",
		"info entry-added ch=beta b="+p+"v0.54.1",
		"info entry-added ch=beta b="+p+"v0.55.0",
		"info entry-added ch=beta b="+p+"v0.56.0",
		"info head-changed ch=beta",
	)
	f := findingOf(t, r, diff.RepresentationChanged, "", p+"v0.52.0")
	if f.Old != "olm.bundle.object (19 objects)" || f.New != "olm.csv.metadata" {
		t.Errorf("representation %q -> %q", f.Old, f.New)
	}
	// The old head needs 3 upgrades (v0.54.1, v0.55.0, v0.56.0) to reach the new one.
	if u := upgradeOf(t, r, "beta", p+"v0.52.0"); u.Old.Hops != 1 || u.New.Hops != 4 {
		t.Errorf("v0.52.0 hops %d -> %d, want 1 -> 4", u.Old.Hops, u.New.Hops)
	}
}

// v0.1.0 was replaced by v0.2.0, which does not replace it but covers it with skipRange <0.2.0:
// users of the removed v0.1.0 still upgrade to the head in one step, so nothing is stranded.
func TestPairNodeObservabilitySnapshots(t *testing.T) {
	r := comparePair(t, "ocmirror-node-observability-two-index-snapshots")
	const v1, v2 = "node-observability-operator.v0.1.0", "node-observability-operator.v0.2.0"
	assertFindings(t, r,
		"info bundle-removed b="+v1,
		"info bundle-added b="+v2,
		"info entry-removed ch=alpha b="+v1,
		"info entry-added ch=alpha b="+v2,
		"info head-changed ch=alpha",
	)
	u := upgradeOf(t, r, "alpha", v1)
	if u.New.InChannel || !cmp.Equal(u.New.Targets, []string{v2}) || !u.New.ReachesHead || u.New.Hops != 1 {
		t.Errorf("removed v0.1.0's users: %+v", u.New)
	}
}
