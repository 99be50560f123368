package diff_test

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/fbc/v1install"
)

const jumpstarterCatalog = "conformance/templates-real/jumpstarter-operator__basic.yaml__v4.20/catalog"

// A duplicate added to a package the comparison otherwise finds unchanged (it reads the first blob
// or entry of a name) is still the new side's problem: olmcat validate fails on it, so diff finds it.
func TestDuplicateInUnchangedPackageIsFound(t *testing.T) {
	const pkg, bundle = "jumpstarter-operator", "jumpstarter-operator.v0.9.0"
	for _, c := range []struct {
		name, want string
		edit       func(t *testing.T, c *fbc.Catalog)
	}{
		{"bundle", "breaking problem-introduced b=" + bundle + " f=duplicate-bundle", func(t *testing.T, c *fbc.Catalog) {
			c.Bundles = append(c.Bundles, *bundleOf(t, c, pkg, bundle))
		}},
		{"channel", "breaking problem-introduced ch=alpha f=duplicate-channel", func(t *testing.T, c *fbc.Catalog) {
			c.Channels = append(c.Channels, c.Channels[0])
		}},
		{"package", "breaking problem-introduced f=duplicate-package", func(t *testing.T, c *fbc.Catalog) {
			c.Packages = append(c.Packages, c.Packages[0])
		}},
		{"entry", "breaking problem-introduced ch=alpha b=" + bundle + " f=duplicate-entry", func(t *testing.T, c *fbc.Catalog) {
			ch := &c.Channels[0]
			ch.Entries = append(ch.Entries, ch.Entries[len(ch.Entries)-1])
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			oldCat, newCat := loadCatalog(t, jumpstarterCatalog), loadCatalog(t, jumpstarterCatalog)
			c.edit(t, newCat)
			r := diff.Compare(side("old", oldCat), side("new", newCat))
			assertFindings(t, r, c.want)
			// and the other way round, the duplicate removed: a fixed problem
			r = diff.Compare(side("old", newCat), side("new", oldCat))
			assertFindings(t, r, strings.Replace(strings.Replace(c.want, "breaking", "info", 1), "introduced", "fixed", 1))
		})
	}
}

// TestSidesHoldEveryValidateProblem: every problem olmcat validate reports on a catalog is a problem
// of that side in diff. Compared with an empty catalog, each is introduced (the full list, located
// as validate locates it); compared with itself, its errors persist and the side counts them all
// (the comparison finds the packages unchanged and reuses the old side's problems).
func TestSidesHoldEveryValidateProblem(t *testing.T) {
	var dirs []string
	for _, pattern := range []string{"conformance/fbc/*/catalog", "conformance/invalid/*/catalog", "diffpairs/fbc/*/old", "diffpairs/fbc/*/new", jumpstarterCatalog} {
		found, _ := filepath.Glob(filepath.Join(sharedPath(t, "conformance"), "..", pattern))
		dirs = append(dirs, found...)
	}
	dirs = append(dirs, invalidUTF8Catalog(t))
	checked := 0
	for _, dir := range dirs {
		// what olmcat validate runs for both generations, but OLM v1's review (diff compares OLM v1's
		// picks itself: v1-install-*, v1-upgrade-*)
		v := model.NewValidator(model.Options{BundleChecks: []model.BundleChecker{v1install.NewChecker()}})
		issues, err := v.Finish(fbc.Walk(dir, v.Add))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		t.Run(strings.TrimPrefix(dir, sharedDir+"/"), func(t *testing.T) {
			var want []string
			errs := 0
			// requirement-not-in-catalog looks across packages and is validate's alone (info); diff
			// says what a review needs of it, head-requirement-not-in-catalog, when a head gains one.
			issues = slices.DeleteFunc(issues, func(i *model.Issue) bool { return i.Rule == "requirement-not-in-catalog" })
			for _, i := range issues {
				want = append(want, problemKey(i.Rule, i.Package, i.Channel, i.Bundle, i.Message, i.Hint))
				if i.Severity == model.Error {
					errs++
				}
			}
			sort.Strings(want)
			if strings.HasSuffix(dir, "invalid-utf8") && !strings.HasPrefix(want[0], "invalid-utf8 |") {
				t.Fatalf("validate does not warn about the byte that is not UTF-8: %q", want)
			}
			r := diff.Compare(side("old", &fbc.Catalog{}), openSide(t, dir))
			var got []string
			for _, f := range r.Findings {
				if f.Category == diff.CategoryValidation {
					got = append(got, problemKey(f.Field, f.Package, f.Channel, f.Bundle, strings.TrimPrefix(f.Message, "new catalog: "), ""))
				}
			}
			sort.Strings(got)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("problems of the new side (-validate +diff):\n%s", d)
			}
			r = diff.Compare(openPair(t, dir, dir))
			if r.New.Problems != len(issues) || r.Old.Problems != len(issues) {
				t.Errorf("compared with itself: %d and %d problems, validate reports %d", r.Old.Problems, r.New.Problems, len(issues))
			}
			if r.Summary.Total() != errs || r.Summary.Warning != errs {
				t.Errorf("compared with itself: %s, want %d persisting errors", summary(r), errs)
			}
		})
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d catalogs checked", checked)
	}
}

func problemKey(rule, pkg, channel, bundle, message, hint string) string {
	if hint != "" {
		message += " (fix: " + hint + ")"
	}
	return strings.Join([]string{rule, pkg, channel, bundle, message}, " | ")
}

// invalidUTF8Catalog is conformance/invalid/stranded-bundle with a byte that is not UTF-8 in the
// package's description: validate warns (invalid-utf8), and so must diff.
func invalidUTF8Catalog(t *testing.T) string {
	data, err := os.ReadFile(filepath.Join(sharedPath(t, "conformance/invalid/stranded-bundle/catalog"), "demo", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `"defaultChannel": "stable"`
	if !strings.Contains(string(data), at) {
		t.Fatalf("no %s in the stranded-bundle catalog", at)
	}
	data = []byte(strings.Replace(string(data), at, "\"description\": \"caf\xe9\",\n  "+at, 1))
	dir := filepath.Join(t.TempDir(), "invalid-utf8")
	if err := os.MkdirAll(filepath.Join(dir, "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "demo", "catalog.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A warning whose rule and place stay but whose text changes is one finding that quotes both texts,
// not the old warning fixed and a new one introduced. On community-operators-prod's
// ecr-secret-operator: v0.4.0 is on the replaces chain and skipped by v0.5.0; when v0.4.1 skips it
// too, the warning names both skippers.
func TestRewordedWarningIsOneFinding(t *testing.T) {
	const dir = "conformance/fbc/community-v4.20-csvmetadata-subset/catalog"
	const pkg, v = "ecr-secret-operator", "ecr-secret-operator.v0"
	oldCat, newCat := loadCatalog(t, dir), loadCatalog(t, dir)
	editEntry(t, newCat, pkg, "alpha", v+".4.1", func(e *fbc.ChannelEntry) { e.Skips = append(e.Skips, v+".4.0") })
	r := diff.Compare(side("old", oldCat), side("new", newCat))
	var mine []string
	for _, f := range r.Findings {
		if f.Package == pkg {
			mine = append(mine, brief(f))
		}
	}
	want := []string{"info problem-changed ch=alpha b=" + v + ".4.0 f=skipped-on-replaces-chain", "info skips-changed ch=alpha b=" + v + ".4.1"}
	if d := cmp.Diff(want, mine); d != "" {
		t.Fatalf("findings of %s (-want +got):\n%s", pkg, d)
	}
	f := findingOf(t, r, diff.ProblemChanged, "alpha", v+".4.0")
	for _, part := range []string{"new catalog: bundle \"" + v + ".4.0\" is on the replaces chain but skipped by " + v + ".4.1, " + v + ".5.0",
		"; the old catalog said: bundle \"" + v + ".4.0\" is on the replaces chain but skipped by " + v + ".5.0:"} {
		if !strings.Contains(f.Message, part) {
			t.Errorf("message %q does not say %q", f.Message, part)
		}
	}
	if f.Old == "" || f.New == "" {
		t.Errorf("not located on both sides: %+v", f)
	}
	// An error reworded persists, quoting both texts.
	oldCat, newCat = validDemo(t), validDemo(t)
	editEntry(t, oldCat, "demo", "stable", "demo.v1.2.0", func(e *fbc.ChannelEntry) { e.SkipRange = "not-a-range" })
	editEntry(t, newCat, "demo", "stable", "demo.v1.2.0", func(e *fbc.ChannelEntry) { e.SkipRange = "still-not-a-range" })
	r = diff.Compare(side("old", oldCat), side("new", newCat))
	var problems []string
	for _, f := range r.Findings {
		if f.Category == diff.CategoryValidation {
			problems = append(problems, brief(f))
			if !strings.Contains(f.Message, `"still-not-a-range"`) || !strings.Contains(f.Message, `the old catalog said: `) || !strings.Contains(f.Message, `"not-a-range"`) {
				t.Errorf("reworded error: %s", f.Message)
			}
		}
	}
	if len(problems) != 1 || !strings.HasPrefix(problems[0], "warning problem-persists ch=stable b=demo.v1.2.0") {
		t.Errorf("reworded error: %q, want one problem-persists", problems)
	}
}
