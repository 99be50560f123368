package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func corpus(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(conformance, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("conformance input %s absent", p)
	}
	return p
}

// sameTree fails unless the two directories hold the same files with the same bytes.
func sameTree(t *testing.T, got, want string) {
	t.Helper()
	files := func(root string) map[string]string {
		m := map[string]string{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			m[filepath.ToSlash(rel)] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	g, w := files(got), files(want)
	for name, content := range w {
		if g[name] != content {
			t.Errorf("%s differs from %s", filepath.Join(got, name), filepath.Join(want, name))
		}
	}
	for name := range g {
		if _, ok := w[name]; !ok {
			t.Errorf("unexpected file %s", filepath.Join(got, name))
		}
	}
}

// TestRmAddThroughBothFormats: take kube-green v0.7.1 out of opm's index.db and add it back from
// its bundle directory, once writing FBC and once writing index.db; both end as opm's migrate output.
func TestRmAddThroughBothFormats(t *testing.T) {
	db := corpus(t, "sqlite/kube-green-replaces/input.db")
	bundle := corpus(t, "bundles/kube-green-0.7.1/bundle")
	want := corpus(t, "sqlite/kube-green-replaces/migrate")
	const image = "quay.io/conformance/kube-green-bundle:v0.7.1"
	tmp := t.TempDir()
	at := func(n string) string { return filepath.Join(tmp, n) }

	mustRun(t, "rm", db, "kube-green.v0.7.1", "--output-dir", at("fbc1"))
	mustRun(t, "add", at("fbc1"), bundle, "--image", image, "--output-dir", at("fbc2"))
	sameTree(t, at("fbc2"), want)

	mustRun(t, "rm", db, "kube-green.v0.7.1", "--output-db", at("a.db"))
	mustRun(t, "add", at("a.db"), bundle, "--image", image, "--output-db", at("b.db"))
	mustRun(t, "migrate", at("b.db"), at("migrated"))
	sameTree(t, at("migrated"), want)
}

// copyTree copies the directory src into a new temporary directory and returns the copy.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	copyDir(t, src, dst)
	return dst
}

func TestInPlaceAndRefusalsLeaveCatalogUntouched(t *testing.T) {
	cat := copyTree(t, corpus(t, "fbc/deprecations-konflux/catalog"))
	file := filepath.Join(cat, "konflux", "catalog.yaml")
	before, _ := os.ReadFile(file)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--channel", "nope", "--message", "x", "--in-place"}, exitFindings, `no such channel`},
		{[]string{"rm", cat, "konflux-operator.v9.9.9", "--in-place"}, exitFindings, "no bundle named"},
		{[]string{"graph-rebuild", cat, "--package", "konflux-operator", "--mode", "semverish", "--in-place"}, exitUsage, "unknown graph mode"},
		{[]string{"add", cat, filepath.Join(cat, "konflux"), "--in-place"}, exitUsage, "name no channel"},
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x"}, exitUsage, "--output-dir DIR, --output-db FILE, or --in-place"},
		// Old spellings name the new flag.
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x", "-o", filepath.Join(cat, "out")}, exitUsage, "use --output-dir"},
		{[]string{"add", cat, filepath.Join(cat, "konflux"), "-o", "yaml"}, exitUsage, "say where the result goes"},
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x", "--in-place", "--format", "yaml"}, exitUsage, "use -o yaml"},
		{[]string{"rm", cat, "x", "--to", "sqlite", "--output-dir", "y"}, exitUsage, "--to sqlite is now --output-db FILE"},
		// No output may touch an input, --force or not.
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x", "--output-dir", cat, "--force"}, exitUsage, "output overlaps an input: it is the input"},
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x", "--output-dir", filepath.Join(cat, "sub"), "--force"}, exitUsage, "it lies inside the input"},
		{[]string{"deprecate", cat, "--package", "konflux-operator", "--message", "x", "--output-dir", filepath.Dir(cat), "--force"}, exitUsage, "it contains the input"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q (want %q)", tc.args, code, tc.code, errs, tc.want)
		}
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Fatal("a refused command changed the catalog")
	}
	// --in-place edits the blob where it stands: the olm.deprecations blob of deprecations.yaml;
	// catalog.yaml, a README and its .indexignore stay as they are.
	for name, content := range map[string]string{"README.md": "notes\n", ".indexignore": "README.md\n"} {
		if err := os.WriteFile(filepath.Join(cat, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	deprecations := filepath.Join(cat, "konflux", "deprecations.yaml")
	oldDeprecations, _ := os.ReadFile(deprecations)
	mustRun(t, "deprecate", cat, "--package", "konflux-operator", "--channel", "stable-v0.1", "--message", "use stable-v0.2", "--in-place")
	out := mustRun(t, "inspect", "package", cat, "konflux-operator", "-o", "json")
	if !strings.Contains(out, `"deprecation": "use stable-v0.2"`) {
		t.Errorf("deprecation not shown by inspect:\n%.2000s", out)
	}
	if after, _ := os.ReadFile(file); !bytes.Equal(before, after) {
		t.Error("konflux/catalog.yaml changed; the deprecation is in deprecations.yaml")
	}
	if after, _ := os.ReadFile(deprecations); bytes.Equal(after, oldDeprecations) || !strings.Contains(string(after), "message: use stable-v0.2") {
		t.Errorf("deprecations.yaml not edited:\n%s", after)
	}
	if readme, err := os.ReadFile(filepath.Join(cat, "README.md")); err != nil || string(readme) != "notes\n" {
		t.Errorf("README.md: %q, %v", readme, err)
	}
	if _, err := os.Stat(filepath.Join(cat, "konflux-operator")); err == nil {
		t.Error("in-place edit laid the catalog out anew (konflux-operator/)")
	}
	mustRun(t, "validate", cat)
}

func TestBundleCommands(t *testing.T) {
	dir := corpus(t, "bundles/etcd-0.9.4")
	out := mustRun(t, "bundle", "render", filepath.Join(dir, "bundle"))
	want, _ := os.ReadFile(filepath.Join(dir, "render.json"))
	if out != string(want) {
		t.Error("bundle render output differs from opm's render.json")
	}
	broken := copyTree(t, filepath.Join(dir, "bundle"))
	if err := os.WriteFile(filepath.Join(broken, "metadata", "annotations.yaml"), []byte("annotations: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI(t, "bundle", "validate", broken, "-o", "json")
	if code != exitFindings || !strings.Contains(stdout, "not valid YAML") {
		t.Errorf("validate of a broken annotations.yaml: exit %d\n%s", code, stdout)
	}
	if code, _, _ := runCLI(t, "bundle", "render", broken); code != exitUsage {
		t.Errorf("render of a broken bundle: exit %d", code)
	}
}

func TestGraphRebuildAndUnpackCommands(t *testing.T) {
	src := corpus(t, "sqlite/community-5ops-semver/migrate")
	tmp := t.TempDir()
	// opm built these channels in semver mode: rebuilding them changes nothing but entry order.
	mustRun(t, "graph-rebuild", src, "--package", "microcks", "--mode", "semver", "--output-dir", filepath.Join(tmp, "rebuilt"))
	a := mustRun(t, "inspect", "package", src, "microcks", "-o", "json")
	b := mustRun(t, "inspect", "package", filepath.Join(tmp, "rebuilt"), "microcks", "-o", "json")
	if a != b {
		t.Error("semver rebuild of opm's semver catalog changed the graph")
	}
	var doc struct {
		Channels []struct{ Bundles []struct{ CSV string } }
	}
	if err := json.Unmarshal([]byte(a), &doc); err != nil || len(doc.Channels) != 2 {
		t.Fatalf("inspect json: %v %+v", err, doc)
	}

	mustRun(t, "unpack", src, filepath.Join(tmp, "unpacked"))
	mustRun(t, "graph-rebuild", filepath.Join(tmp, "unpacked"), "--package", "microcks", "--mode", "semver", "--output-dir", filepath.Join(tmp, "fromunpacked"))
	sameTree(t, filepath.Join(tmp, "fromunpacked"), filepath.Join(tmp, "rebuilt"))
}

// TestGraphRebuildThroughIndexDB: a semver-skippatch rebuild written as index.db reads back with
// the same upgrade edges as the one written as FBC.
func TestGraphRebuildThroughIndexDB(t *testing.T) {
	db := corpus(t, "sqlite/community-5ops-semver/input.db")
	tmp := t.TempDir()
	args := []string{"graph-rebuild", db, "--package", "cert-utils-operator", "--mode", "semver-skippatch"}
	mustRun(t, append(args, "--output-dir", filepath.Join(tmp, "fbc"))...)
	mustRun(t, append(args, "--output-db", filepath.Join(tmp, "index.db"))...)
	fromFBC := mustRun(t, "inspect", "package", filepath.Join(tmp, "fbc"), "cert-utils-operator", "-o", "json")
	fromDB := mustRun(t, "inspect", "package", filepath.Join(tmp, "index.db"), "cert-utils-operator", "-o", "json")
	if fromFBC != fromDB {
		t.Errorf("index.db and FBC results differ:\nFBC: %.1500s\nDB:  %.1500s", fromFBC, fromDB)
	}
	if !strings.Contains(fromFBC, `"csv": "cert-utils-operator.v1.3.11",`) || !strings.Contains(fromFBC, `"via": [
                "skips"`) {
		t.Errorf("skippatch graph not as expected:\n%.3000s", fromFBC)
	}
}
