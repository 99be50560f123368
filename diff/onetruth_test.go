package diff_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
)

// assertOneTruth checks that the validator and the diff say the same about every bundle the diff
// lists in its upgrades: a bundle of a channel opm accepts reaches the head (upgrades section) if
// and only if the validator has no unreachable-from-head warning for it, on each side; and every
// stranded or new-path finding about an entry of the new channel agrees with both.
func assertOneTruth(t *testing.T, r *diff.Report, oldCat, newCat *fbc.Catalog) {
	t.Helper()
	type key struct{ pkg, ch, bundle string }
	read := func(cat *fbc.Catalog) (unreachable map[key]bool, broken map[key]bool) {
		unreachable, broken = map[key]bool{}, map[key]bool{}
		if cat == nil {
			return
		}
		for _, i := range model.ValidateCatalog(cat, model.Options{}) {
			switch {
			case i.Rule == "unreachable-from-head":
				unreachable[key{i.Package, i.Channel, i.Bundle}] = true
			case i.Severity == model.Error && i.Channel != "":
				broken[key{i.Package, i.Channel, ""}] = true
			}
		}
		return
	}
	oldUnreachable, oldBroken := read(oldCat)
	newUnreachable, newBroken := read(newCat)
	checked := 0
	for _, u := range r.Upgrades {
		k, ch := key{u.Package, u.Channel, u.Bundle}, key{u.Package, u.Channel, ""}
		for _, s := range []struct {
			name        string
			reach       diff.Reach
			unreachable map[key]bool
			broken      map[key]bool
		}{{"old", u.Old, oldUnreachable, oldBroken}, {"new", u.New, newUnreachable, newBroken}} {
			if !s.reach.InChannel || s.reach.Head == "" || s.broken[ch] {
				continue
			}
			checked++
			if s.reach.ReachesHead == s.unreachable[k] {
				t.Errorf("%s side, %s/%s %s: upgrades say reachesHead=%v, validator says unreachable=%v",
					s.name, u.Package, u.Channel, u.Bundle, s.reach.ReachesHead, s.unreachable[k])
			}
		}
	}
	inNew := map[key]bool{}
	for _, u := range r.Upgrades {
		inNew[key{u.Package, u.Channel, u.Bundle}] = u.New.InChannel
	}
	for _, f := range r.Findings {
		k := key{f.Package, f.Channel, f.Bundle}
		switch {
		case !inNew[k] && f.Kind != diff.ProblemFixed:
			// a removed bundle: the validator of the new side knows nothing of it
		case f.Kind == diff.Stranded && !newBroken[key{f.Package, f.Channel, ""}] && !newUnreachable[k]:
			t.Errorf("stranded %s/%s %s, but the validator finds its way to the new head", f.Package, f.Channel, f.Bundle)
		case f.Kind == diff.NewPath && newUnreachable[k]:
			t.Errorf("new-path %s/%s %s, but the validator says it cannot reach the new head", f.Package, f.Channel, f.Bundle)
		case f.Kind == diff.ProblemFixed && f.Field == "unreachable-from-head" && newUnreachable[k]:
			t.Errorf("problem-fixed for %s/%s %s, which the new catalog still cannot bring to the head", f.Package, f.Channel, f.Bundle)
		}
	}
	t.Logf("%d bundle sides checked", checked)
}

const kubernautDir = "../fbc/model/testdata/kubernaut"

// TestKubernautOneAnswer: adding kubernaut-operator.v1.5.0 (replaces and skips 1.4.1) cuts the
// users of 1.3.4 off: OLM never offers the skipped 1.4.1, and 1.5.0 names only 1.4.1 (see
// fbc/model/UPGRADES.md). The finding, the validator's warning and the upgrades section say so
// together; 1.3.2 and 1.3.3 were cut off before and still are (no finding).
func TestKubernautOneAnswer(t *testing.T) {
	oldSide, newSide := openPair(t, filepath.Join(kubernautDir, "old"), filepath.Join(kubernautDir, "new"))
	r := diff.Compare(oldSide, newSide)
	checkKubernaut(t, r)
	assertOneTruth(t, r, oldSide.Catalog, newSide.Catalog)
}

// TestKubernautOneAnswerReal: the same change on the channel as community-operators-prod publishes
// it (conformance/fbc/community-v4.20-csvmetadata-subset), the old side being that catalog without
// kubernaut-operator.v1.5.0.
func TestKubernautOneAnswerReal(t *testing.T) {
	dir := sharedPath(t, "conformance/fbc/community-v4.20-csvmetadata-subset/catalog/kubernaut-operator")
	newCat, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	oldCat, _ := fbc.Load(dir)
	removeBundle(oldCat, "kubernaut-operator", kubernaut+"1.5.0")
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	checkKubernaut(t, r)
	assertOneTruth(t, r, oldCat, newCat)
}

const kubernaut = "kubernaut-operator.v"

func checkKubernaut(t *testing.T, r *diff.Report) {
	t.Helper()
	assertFindings(t, r,
		"info crd-upgrade-unchecked", // csv.metadata bundles: no CRD in the catalog to check
		"warning problem-introduced ch=candidate-v1 b="+kubernaut+"1.3.4 f=unreachable-from-head",
		"warning problem-introduced ch=candidate-v1 b="+kubernaut+"1.4.1 f=skipped-on-replaces-chain",
		"info bundle-added b="+kubernaut+"1.5.0",
		"info entry-added ch=candidate-v1 b="+kubernaut+"1.5.0",
		"info head-changed ch=candidate-v1",
		"breaking stranded ch=candidate-v1 b="+kubernaut+"1.3.4",
	)
	u := upgradeOf(t, r, "candidate-v1", kubernaut+"1.3.4")
	if !u.Old.ReachesHead || u.Old.Hops != 1 || u.New.ReachesHead || u.New.End != kubernaut+"1.3.4" || len(u.New.Targets) != 0 {
		t.Errorf("1.3.4: %+v", u)
	}
	if u := upgradeOf(t, r, "candidate-v1", kubernaut+"1.4.1"); !u.New.ReachesHead || u.New.Hops != 1 {
		t.Errorf("1.4.1: %+v", u)
	}
}

// TestOneTruthOnDiffPairs runs the consistency check on every real revision pair.
func TestOneTruthOnDiffPairs(t *testing.T) {
	root := sharedPath(t, "diffpairs")
	for _, format := range []string{"fbc", "sqlite"} {
		dirs, _ := os.ReadDir(filepath.Join(root, format))
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			t.Run(format+"/"+d.Name(), func(t *testing.T) {
				o, n := filepath.Join(root, format, d.Name(), "old"), filepath.Join(root, format, d.Name(), "new")
				if format == "sqlite" {
					o, n = o+".db", n+".db"
				}
				oldSide, newSide := openPair(t, o, n)
				assertOneTruth(t, diff.Compare(oldSide, newSide), oldSide.Catalog, newSide.Catalog)
			})
		}
	}
}
