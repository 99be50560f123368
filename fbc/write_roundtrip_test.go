package fbc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const conformanceDir = "../../shared/conformance"

func conformanceGlob(t *testing.T, pattern string) []string {
	t.Helper()
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance corpus not found at %s (run from /work/main/fbc with /work/shared present)", conformanceDir)
	}
	matches, err := filepath.Glob(filepath.Join(conformanceDir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) == 0 {
		t.Fatalf("no conformance input matches %s", pattern)
	}
	return matches
}

// migrateOutputDirs are opm migrate's output directories (json, yaml and csv-metadata flavours).
func migrateOutputDirs(t *testing.T) []string {
	var dirs []string
	for _, d := range conformanceGlob(t, "sqlite/*/migrate*") {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// Loading an opm migrate output and writing it back must give opm's bytes exactly, per package file,
// in both formats: nothing is lost, reordered or re-encoded by the load.
func TestLoadThenWriteMatchesOpmMigrateOutput(t *testing.T) {
	checked := map[Format]int{}
	for _, dir := range migrateOutputDirs(t) {
		c, err := Load(dir)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		parts := map[string]*Catalog{}
		for _, p := range SplitByPackage(c) {
			parts[p.Package] = p.Catalog
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*", "catalog.*"))
		if len(files) != len(parts) {
			t.Errorf("%s: %d package files but %d packages loaded", dir, len(files), len(parts))
		}
		for _, f := range files {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			format := Format(strings.TrimPrefix(filepath.Ext(f), "."))
			part := parts[filepath.Base(filepath.Dir(f))]
			if part == nil {
				t.Errorf("%s: package not loaded", f)
				continue
			}
			var out bytes.Buffer
			if err := Write(&out, part, format); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: load+write differs from opm's file (%d vs %d bytes)", f, out.Len(), len(want))
			}
			checked[format]++
		}
	}
	if checked[JSON] == 0 || checked[YAML] == 0 {
		t.Errorf("expected both JSON and YAML migrate outputs, checked %v", checked)
	}
}

// A single catalog file given as the root loads the same as the directory holding it.
func TestLoadSingleFileMatchesOpmMigrateOutput(t *testing.T) {
	for _, f := range conformanceGlob(t, "sqlite/*/migrate-yaml/*/catalog.yaml") {
		want, _ := os.ReadFile(f)
		c, err := Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var out bytes.Buffer
		if err := Write(&out, c, YAML); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("%s: load+write of the single file differs from the file", f)
		}
		if len(c.Bundles) == 0 || c.Bundles[0].Loc.File != f {
			t.Errorf("%s: blobs of a single-file root should be located in the file as given", f)
		}
	}
}
