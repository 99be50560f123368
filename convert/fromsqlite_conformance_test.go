package convert

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/model"
	"github.com/olmcat/olmcat/sqlite/tofbc"
)

const sqliteConformanceDir = "../../shared/conformance/sqlite"

// conformanceCases lists the corpus's sqlite cases, skipping the test when the corpus is absent.
func conformanceCases(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(sqliteConformanceDir)
	if err != nil {
		t.Skipf("conformance corpus not found at %s (%v); it lives in /work/shared/conformance", sqliteConformanceDir, err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// outputVariants are the opm migrate outputs recorded per case, with the options that made them.
var outputVariants = []struct {
	dir   string
	opts  MigrateOptions
	level tofbc.MigrateLevel
}{
	{"migrate", MigrateOptions{Format: fbc.JSON}, tofbc.LevelNone},
	{"migrate-yaml", MigrateOptions{Format: fbc.YAML}, tofbc.LevelNone},
	{"migrate-csvmeta", MigrateOptions{Format: fbc.JSON}, tofbc.LevelCSVMetadata},
}

// TestMigrateMatchesOpm runs olmcat migrate on every corpus index and compares each output file with
// opm v1.72's byte for byte. Where olmcat departs from opm on purpose, the test requires that undoing
// exactly the reported departures gives opm's bytes back.
func TestMigrateMatchesOpm(t *testing.T) {
	for _, name := range conformanceCases(t) {
		caseDir := filepath.Join(sqliteConformanceDir, name)
		if _, err := os.Stat(filepath.Join(caseDir, "migrate.error.txt")); err == nil {
			t.Run(name+"/opm-failed", func(t *testing.T) { migratesWhereOpmFailed(t, caseDir) })
		}
		for _, v := range outputVariants {
			wantDir := filepath.Join(caseDir, v.dir)
			if _, err := os.Stat(wantDir); err != nil {
				continue
			}
			t.Run(name+"/"+v.dir, func(t *testing.T) {
				out := filepath.Join(t.TempDir(), "out")
				report, err := migrateIndex(filepath.Join(caseDir, "input.db"), out, v.opts, v.level)
				if err != nil {
					t.Fatalf("migrate: %v", err)
				}
				compareTrees(t, wantDir, out, report, v.opts.Format)
			})
		}
	}
}

func compareTrees(t *testing.T, wantDir, gotDir string, report *tofbc.Report, format fbc.Format) {
	t.Helper()
	want, got := treeFiles(t, wantDir), treeFiles(t, gotDir)
	if strings.Join(want, "\n") != strings.Join(got, "\n") {
		t.Fatalf("output files differ:\nopm:    %v\nolmcat: %v", want, got)
	}
	for _, rel := range want {
		w, err := os.ReadFile(filepath.Join(wantDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.ReadFile(filepath.Join(gotDir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(w, g) {
			continue
		}
		pkg := filepath.Dir(rel)
		undone, err := undoDepartures(g, format, report, pkg)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		if !bytes.Equal(w, undone) {
			t.Errorf("%s differs from opm's output%s\n%s", rel, explainedBy(report, pkg), firstDifference(w, undone))
		}
	}
}

func explainedBy(r *tofbc.Report, pkg string) string {
	var codes []string
	for _, d := range r.Departures {
		if d.Package == pkg {
			codes = append(codes, string(d.Code))
		}
	}
	if len(codes) == 0 {
		return " (no departure reported for the package)"
	}
	return fmt.Sprintf(" even after undoing the reported departures %v", codes)
}

func treeFiles(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// firstDifference shows the first line where two files differ, with a little context.
func firstDifference(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return fmt.Sprintf("line %d:\n  opm:    %.300s\n  olmcat: %.300s", i+1, w, g)
		}
	}
	return "(same lines, different bytes)"
}

// migratesWhereOpmFailed: where opm migrate failed, olmcat succeeds, writes a valid catalog and
// reports at least one departure (a case-specific test, e.g. TestMigrateSkips40, checks which).
func migratesWhereOpmFailed(t *testing.T, caseDir string) {
	out := filepath.Join(t.TempDir(), "out")
	report, err := migrateIndex(filepath.Join(caseDir, "input.db"), out, MigrateOptions{})
	if err != nil {
		t.Fatalf("opm failed here, olmcat must not: %v", err)
	}
	if len(report.Departures) == 0 {
		t.Error("opm failed here but olmcat reports no departure")
	}
	if errs := model.ValidateCatalog(loadOutput(t, out), model.Options{}).Errors(); len(errs) > 0 {
		t.Errorf("catalog does not validate:\n%v", errs)
	}
}
