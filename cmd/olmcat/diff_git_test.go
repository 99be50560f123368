package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// linkRepo commits catalogs whose files are symbolic links, from the real pairs:
//
//	catalogs/hive/catalog.yaml -> ../store/hive.yaml   a link inside the catalog (store/ ignored)
//	catalogs/sail/catalog.yaml                         a plain file
//	linked/sail/catalog.yaml -> ../../outside/sail.yaml a link out of the catalog, into the repository
//	current -> v1                                      a linked catalog directory (v2 is hive's next revision)
func linkRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	hiveOld, hiveNew := pair(t, "hive-operator-v4.18-consecutive")
	sailOld, _ := pair(t, "sailoperator-v4.18-prune-channel")
	hiveOld = filepath.Join(hiveOld, "catalogs/v4.18/hive-operator/catalog.yaml")
	hiveNew = filepath.Join(hiveNew, "catalogs/v4.18/hive-operator/catalog.yaml")
	sailOld = filepath.Join(sailOld, "catalogs/v4.18/sailoperator/catalog.yaml")
	dir := t.TempDir()
	for dst, src := range map[string]string{
		"catalogs/store/hive.yaml": hiveOld, "catalogs/sail/catalog.yaml": sailOld, "outside/sail.yaml": sailOld,
		"v1/catalog.yaml": hiveOld, "v2/catalog.yaml": hiveNew,
	} {
		copyFile(t, src, filepath.Join(dir, dst))
	}
	writeFile(t, filepath.Join(dir, "catalogs/.indexignore"), "store\n")
	for link, target := range map[string]string{"catalogs/hive/catalog.yaml": "../store/hive.yaml",
		"linked/sail/catalog.yaml": "../../outside/sail.yaml", "current": "v1"} {
		symlink(t, target, filepath.Join(dir, link))
	}
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "catalogs")
	return dir
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, string(data))
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// diffFindings runs olmcat diff -o json and returns its exit code and findings.
func diffFindings(t *testing.T, args ...string) (int, []map[string]any) {
	t.Helper()
	code, out, errs := runCLI(t, append(append([]string{"diff"}, args...), "-o", "json", "--fail-on", "breaking")...)
	var doc struct{ Findings []map[string]any }
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("olmcat diff %v: exit %d: %v\n%s", args, code, err, errs)
	}
	return code, doc.Findings
}

// sameAsCheckout diffs path at HEAD with --git, and a checkout of HEAD with the work tree: the
// two must agree finding for finding.
func sameAsCheckout(t *testing.T, repo, checkout, path string) (int, []map[string]any) {
	t.Helper()
	code, viaGit := diffFindings(t, "--git", "HEAD", filepath.Join(repo, path))
	wantCode, want := diffFindings(t, filepath.Join(checkout, path), filepath.Join(repo, path))
	if code != wantCode || !reflect.DeepEqual(viaGit, want) {
		t.Errorf("%s: --git HEAD gives exit %d and\n%v\na checkout of HEAD gives exit %d and\n%v", path, code, viaGit, wantCode, want)
	}
	return code, viaGit
}

func kinds(fs []map[string]any) string {
	var out []string
	for _, f := range fs {
		pkg, _ := f["package"].(string) // catalog-wide findings (crd-upgrade-unchecked) have none
		out = append(out, f["kind"].(string)+" "+pkg)
	}
	return strings.Join(out, ", ")
}

// A git revision reads exactly as the same tree checked out, symbolic links included.
func TestDiffGitReadsLinksAsCheckedOut(t *testing.T) {
	repo := linkRepo(t)
	checkout := filepath.Join(t.TempDir(), "checkout")
	gitIn(t, repo, "worktree", "add", "-q", "--detach", checkout, "HEAD")

	for _, path := range []string{"catalogs", "catalogs/hive/catalog.yaml", "linked", "current"} {
		sameAsCheckout(t, repo, checkout, path)
	}
	if code, fs := sameAsCheckout(t, repo, checkout, "catalogs"); code != 0 || len(fs) != 0 {
		t.Errorf("unchanged tree: exit %d, findings %s", code, kinds(fs))
	}

	// Deleting the package whose catalog file is a link: its removal is breaking.
	if err := os.RemoveAll(filepath.Join(repo, "catalogs/hive")); err != nil {
		t.Fatal(err)
	}
	if code, fs := sameAsCheckout(t, repo, checkout, "catalogs"); code != 1 || kinds(fs) != "package-removed hive-operator" {
		t.Errorf("package deleted: exit %d, findings %s", code, kinds(fs))
	}

	// current/ pointed at v1 at HEAD and points at v2 now: HEAD's current/ is v1.
	if err := os.Remove(filepath.Join(repo, "current")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "v2", filepath.Join(repo, "current"))
	if _, fs := sameAsCheckout(t, repo, checkout, "current"); !strings.Contains(kinds(fs), "head-changed hive-operator") {
		t.Errorf("retargeted link: findings %s", kinds(fs))
	}
}
