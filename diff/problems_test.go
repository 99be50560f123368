package diff_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
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
		v := model.NewValidator(model.Options{})
		issues, err := v.Finish(fbc.Walk(dir, v.Add))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if incompletelyLoaded(issues) {
			// validate checks no cross-blob rule of a package whose file did not load; diff reports
			// what the blobs that loaded say (diff/invalid_test.go, TestTruncatedNewSide)
			continue
		}
		t.Run(strings.TrimPrefix(dir, sharedDir+"/"), func(t *testing.T) {
			var want []string
			errs := 0
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

func incompletelyLoaded(issues model.Issues) bool {
	for _, i := range issues {
		if i.Rule == "package-not-checked" {
			return true
		}
	}
	return false
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
