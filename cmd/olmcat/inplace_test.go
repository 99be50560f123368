package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/fbc"
)

// gitOutput runs git in dir as gitIn does and returns its standard output.
func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// gitStatus is `git status --porcelain` of the repository: one "XY path" a changed file.
func gitStatus(t *testing.T, repo string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(gitOutput(t, repo, "status", "--porcelain", "--untracked-files=all"), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}

func wantStatus(t *testing.T, step, repo string, want ...string) {
	t.Helper()
	want = slices.Sorted(slices.Values(want))
	if got := gitStatus(t, repo); !slices.Equal(got, want) {
		t.Fatalf("%s: git status\n%s\nwant\n%s\ngit diff --stat:\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"),
			gitOutput(t, repo, "diff", "--stat"))
	}
}

// numstat is `git diff --numstat` of one file: lines added and deleted.
func numstat(t *testing.T, repo, path string) string {
	t.Helper()
	f := strings.Fields(gitOutput(t, repo, "diff", "--numstat", "--", path))
	if len(f) < 2 {
		return ""
	}
	return f[0] + "+" + f[1] + "-"
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pieces splits a catalog file as the loader reads it.
func pieces(t *testing.T, path string) *fbc.FileText {
	t.Helper()
	ft, err := fbc.SplitFile([]byte(readText(t, path)), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	return ft
}

// communityRepo makes a git repository holding catalogs/v4.18, a catalog laid out as
// community-operators-prod's (<package>/catalog.yaml) but mixed: operator-000 in YAML,
// operator-001 in JSON, operator-002 split over package.json (olm.package and channels) and
// bundles.yaml (bundles), with a README.md that an .indexignore hides. All of it is opm's
// migrate output of fixtures/index.db, cut apart blob by blob.
func communityRepo(t *testing.T) (repo, cat string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	mustRun(t, "migrate", "../../fixtures/index.db", filepath.Join(tmp, "json"))
	mustRun(t, "migrate", "../../fixtures/index.db", filepath.Join(tmp, "yaml"), "-o", "yaml")
	repo = filepath.Join(tmp, "repo")
	cat = filepath.Join(repo, "catalogs", "v4.18")
	copyFile(t, filepath.Join(tmp, "yaml", "operator-000", "catalog.yaml"), filepath.Join(cat, "operator-000", "catalog.yaml"))
	copyFile(t, filepath.Join(tmp, "json", "operator-001", "catalog.json"), filepath.Join(cat, "operator-001", "catalog.json"))
	var pkgJSON, bundlesYAML strings.Builder
	js := pieces(t, filepath.Join(tmp, "json", "operator-002", "catalog.json"))
	for _, p := range js.Pieces {
		if p.Blob.Schema != fbc.SchemaBundle {
			pkgJSON.WriteString(string(js.Data[p.Start:p.End]) + "\n")
		}
	}
	ys := pieces(t, filepath.Join(tmp, "yaml", "operator-002", "catalog.yaml"))
	for _, p := range ys.Pieces {
		if p.Blob.Schema == fbc.SchemaBundle {
			bundlesYAML.WriteString(string(ys.Data[p.Start:p.End]))
		}
	}
	writeFile(t, filepath.Join(cat, "operator-002", "package.json"), pkgJSON.String())
	writeFile(t, filepath.Join(cat, "operator-002", "bundles.yaml"), bundlesYAML.String())
	writeFile(t, filepath.Join(cat, "README.md"), "Catalog for OpenShift 4.18.\n")
	writeFile(t, filepath.Join(cat, ".indexignore"), "README.md\n")
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-qm", "catalog")
	mustRun(t, "validate", cat)
	return repo, cat
}

// TestInPlaceEditsOnlyTheEditedBlobs: deprecate, rm and add with --in-place on a mixed catalog
// in git: the diff is the edited blobs and nothing else, each file keeps its format and mode,
// a removed package's file and directory go, README.md and .indexignore stay.
func TestInPlaceEditsOnlyTheEditedBlobs(t *testing.T) {
	repo, cat := communityRepo(t)
	commit := func(msg string) {
		gitIn(t, repo, "add", "-A")
		gitIn(t, repo, "commit", "-qm", msg)
	}
	const (
		yaml000 = "catalogs/v4.18/operator-000/catalog.yaml"
		json001 = "catalogs/v4.18/operator-001/catalog.json"
		pkg002  = "catalogs/v4.18/operator-002/package.json"
		bdl002  = "catalogs/v4.18/operator-002/bundles.yaml"
	)
	at := func(rel string) string { return filepath.Join(repo, filepath.FromSlash(rel)) }
	original000 := readText(t, at(yaml000))
	if err := os.Chmod(at(yaml000), 0o600); err != nil {
		t.Fatal(err)
	}

	// A new olm.deprecations blob goes at the end of its package's YAML file, in YAML.
	mustRun(t, "deprecate", cat, "--package", "operator-000", "--message", "use operator-002", "--in-place")
	wantStatus(t, "deprecate operator-000", repo, " M "+yaml000)
	now := readText(t, at(yaml000))
	added, ok := strings.CutPrefix(now, original000)
	if !ok || !strings.HasPrefix(added, "---\nentries:\n- message: use operator-002\n") || !strings.HasSuffix(added, "schema: olm.deprecations\n") {
		t.Fatalf("deprecate changed more than it added, or added:\n%s", added)
	}
	if fi, err := os.Stat(at(yaml000)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode of the edited file: %v %v, want 0600", fi.Mode(), err)
	}
	commit("deprecate operator-000")

	// In a JSON file, in JSON, indented as the file is.
	original001 := readText(t, at(json001))
	mustRun(t, "deprecate", cat, "--package", "operator-001", "--channel", "candidate", "--message", "use stable", "--in-place")
	wantStatus(t, "deprecate a channel of operator-001", repo, " M "+json001)
	added, ok = strings.CutPrefix(readText(t, at(json001)), original001)
	if !ok || !strings.HasPrefix(added, "{\n    \"schema\": \"olm.deprecations\",\n    \"package\": \"operator-001\",\n") {
		t.Fatalf("deprecation of a JSON package:\n%s", added)
	}
	commit("deprecate a channel of operator-001")

	// A changed blob is changed where it stands: a second entry in the same olm.deprecations blob.
	mustRun(t, "deprecate", cat, "--package", "operator-001", "--channel", "stable", "--message", "gone", "--in-place")
	wantStatus(t, "deprecate another channel", repo, " M "+json001)
	if got := numstat(t, repo, json001); got != "7+0-" {
		t.Errorf("second deprecation entry: %s lines, want 7 added (one entry)\n%s", got, gitOutput(t, repo, "diff"))
	}
	gitIn(t, repo, "checkout", "-q", "--", ".")

	// Undoing the deprecation takes the blob out again: the file is what it was.
	mustRun(t, "deprecate", cat, "--package", "operator-000", "--undo", "--in-place")
	wantStatus(t, "undo", repo, " M "+yaml000)
	if readText(t, at(yaml000)) != original000 {
		t.Fatalf("undo did not give back the original file; diff:\n%s", gitOutput(t, repo, "diff"))
	}
	commit("undo")

	// Removing a bundle of the split package: its YAML document is cut out of bundles.yaml, its
	// channel entries change in package.json; nothing else.
	bundles := pieces(t, at(bdl002))
	victim := bundles.Pieces[len(bundles.Pieces)-1] // the newest: added back, it is the head again
	oldBundles, oldPkg := readText(t, at(bdl002)), pieces(t, at(pkg002))
	var channel string
	for _, p := range oldPkg.Pieces {
		if p.Blob.Schema == fbc.SchemaChannel && strings.Contains(string(p.Blob.Data), `"`+victim.Blob.Name+`"`) {
			channel = p.Blob.Name
		}
	}
	blobFile := filepath.Join(t.TempDir(), "bundle.json")
	writeFile(t, blobFile, string(victim.Blob.Data))
	mustRun(t, "rm", cat, victim.Blob.Name, "--in-place")
	wantStatus(t, "rm a bundle", repo, " M "+pkg002, " M "+bdl002)
	if got, want := readText(t, at(bdl002)), oldBundles[:victim.Start]+oldBundles[victim.End:]; got != want {
		t.Errorf("bundles.yaml: more than the removed bundle's document changed:\n%s", gitOutput(t, repo, "diff", "--", bdl002))
	}
	newPkg := pieces(t, at(pkg002))
	if len(newPkg.Pieces) != len(oldPkg.Pieces) {
		t.Fatalf("package.json: %d blobs, was %d", len(newPkg.Pieces), len(oldPkg.Pieces))
	}
	for i, p := range newPkg.Pieces {
		before := oldPkg.Data[oldPkg.Pieces[i].Start:oldPkg.Pieces[i].End]
		text := newPkg.Data[p.Start:p.End]
		if mentions := bytes.Contains(before, []byte(`"`+victim.Blob.Name+`"`)); mentions == bytes.Equal(text, before) {
			t.Errorf("package.json blob %s %q: changed %v, but names the removed bundle: %v", p.Blob.Schema, p.Blob.Name, !bytes.Equal(text, before), mentions)
		}
	}
	if strings.Contains(gitOutput(t, repo, "diff", "--", pkg002), `"schema"`) {
		t.Errorf("package.json: the diff touches more than channel entries:\n%s", gitOutput(t, repo, "diff", "--", pkg002))
	}
	commit("rm a bundle")

	// Adding it back: into the file of the package's olm.package blob, in that file's format.
	mustRun(t, "add", cat, blobFile, "--channel", channel, "--in-place")
	wantStatus(t, "add the bundle back", repo, " M "+pkg002)
	pkgText := pieces(t, at(pkg002))
	last := pkgText.Pieces[len(pkgText.Pieces)-1]
	if last.Blob.Schema != fbc.SchemaBundle || last.Blob.Name != victim.Blob.Name || !bytes.HasPrefix(pkgText.Data[last.Start:], []byte("{\n    \"schema\": \"olm.bundle\",\n")) {
		t.Errorf("the added bundle is not the last blob of package.json, in JSON:\n%s", gitOutput(t, repo, "diff"))
	}
	mustRun(t, "validate", cat)
	commit("add it back")

	// Removing a package deletes its file and the directory it leaves empty.
	code, _, errs := runCLI(t, "rm", cat, "--package", "operator-001", "--in-place")
	if code != 0 || !strings.Contains(errs, "removed package operator-001") {
		t.Fatalf("rm --package --in-place: exit %d\n%s", code, errs)
	}
	wantStatus(t, "rm --package", repo, " D "+json001)
	if _, err := os.Stat(filepath.Join(cat, "operator-001")); !os.IsNotExist(err) {
		t.Errorf("the emptied package directory is still there: %v", err)
	}
	if readText(t, filepath.Join(cat, "README.md")) != "Catalog for OpenShift 4.18.\n" {
		t.Error("README.md changed")
	}
	commit("rm operator-001")

	// A bundle of a package the catalog does not have makes a new file, as opm lays it out,
	// in the format of the catalog's files (mixed here: JSON).
	again := filepath.Join(t.TempDir(), "bundle.json")
	writeFile(t, again, strings.ReplaceAll(strings.ReplaceAll(string(victim.Blob.Data), "operator-002", "operator-009"), `"image":"`, `"image":"x/`))
	mustRun(t, "add", cat, again, "--channel", "stable", "--in-place")
	wantStatus(t, "add a new package", repo, "?? catalogs/v4.18/operator-009/catalog.json")
	if code, out, _ := runCLI(t, "validate", cat); code != 0 {
		t.Errorf("the new package does not validate:\n%s", out)
	}
	gitIn(t, repo, "clean", "-qfd")

	// Nothing changed, nothing written.
	code, _, errs = runCLI(t, "deprecate", cat, "--convert-legacy", "--in-place")
	if code != 0 || !strings.Contains(errs, "unchanged") {
		t.Errorf("convert-legacy with nothing to convert: exit %d\n%s", code, errs)
	}
	wantStatus(t, "no-op", repo)
}

// TestInPlaceRefusesSeveralCatalogs: a directory holding catalogs/v4.17 and catalogs/v4.18 with
// the same packages is refused for --in-place (exit 2), naming the catalogs, with nothing
// written; -o of another format than the files' is refused too.
func TestInPlaceRefusesSeveralCatalogs(t *testing.T) {
	repo, cat := communityRepo(t)
	root := filepath.Dir(cat)
	// The case: catalogs/ holding catalogs/v4.18 alone is a catalog like any, edited where
	// its files are (it used to be laid out anew, every file moved to catalogs/P/).
	mustRun(t, "deprecate", root, "--package", "operator-000", "--message", "x", "--in-place")
	wantStatus(t, "catalogs/ of one catalog", repo, " M catalogs/v4.18/operator-000/catalog.yaml")
	gitIn(t, repo, "checkout", "-q", "--", ".")
	copyDir(t, cat, filepath.Join(root, "v4.17"))
	copyDir(t, cat, filepath.Join(root, "v4.9"))
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-qm", "more catalogs")
	for _, args := range [][]string{
		{"deprecate", root, "--package", "operator-000", "--message", "x", "--in-place"},
		{"rm", root, "--package", "operator-001", "--in-place"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(errs, filepath.Join(root, "v4.9")) || !strings.Contains(errs, filepath.Join(root, "v4.17")) ||
			!strings.Contains(errs, "e.g. "+filepath.Join(root, "v4.18")) {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
	}
	wantStatus(t, "several catalogs", repo)
	// One of them is edited as any catalog.
	mustRun(t, "deprecate", filepath.Join(root, "v4.17"), "--package", "operator-000", "--message", "x", "--in-place")
	wantStatus(t, "one catalog", repo, " M catalogs/v4.17/operator-000/catalog.yaml")
	gitIn(t, repo, "checkout", "-q", "--", ".")

	code, _, errs := runCLI(t, "deprecate", cat, "--package", "operator-000", "--message", "x", "--in-place", "-o", "yaml")
	if code != exitUsage || !strings.Contains(errs, "keeps each file in its format") {
		t.Errorf("-o yaml over JSON files: exit %d\n%s", code, errs)
	}
	wantStatus(t, "-o yaml", repo)
}

// TestInPlaceSingleFile: an FBC file is edited in place as a directory's file is.
func TestInPlaceSingleFile(t *testing.T) {
	tmp := t.TempDir()
	mustRun(t, "migrate", "../../fixtures/index.db", filepath.Join(tmp, "yaml"), "-o", "yaml")
	file := filepath.Join(tmp, "one.yaml")
	copyFile(t, filepath.Join(tmp, "yaml", "operator-001", "catalog.yaml"), file)
	before := readText(t, file)
	mustRun(t, "deprecate", file, "--package", "operator-001", "--message", "old", "--in-place")
	added, ok := strings.CutPrefix(readText(t, file), before)
	if !ok || !strings.HasPrefix(added, "---\nentries:\n- message: old\n") {
		t.Fatalf("single file:\n%s", added)
	}
}

// TestInPlaceUnpackedCatalog: in an unpacked catalog (olm.bundle.object refs to objects/ files),
// kept bundles keep their refs; a removed bundle's object files go with it, and so do a removed
// package's, the directories they leave empty too.
func TestInPlaceUnpackedCatalog(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	cat := filepath.Join(repo, "unpacked")
	mustRun(t, "unpack", "../../fixtures/index.db", cat)
	gitIn(t, repo, "init", "-q")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-qm", "unpacked")

	mustRun(t, "rm", cat, "operator-001.v1.0.3", "--in-place")
	var want []string
	for _, f := range strings.Fields(gitOutput(t, repo, "ls-files", "unpacked/operator-001/objects/operator-001.v1.0.3")) {
		want = append(want, " D "+f)
	}
	if len(want) == 0 {
		t.Fatal("the fixture's bundle has no object files")
	}
	wantStatus(t, "rm a bundle", repo, append(want, " M unpacked/operator-001/operator-001.json")...)
	if strings.Contains(gitOutput(t, repo, "diff", "--", "unpacked/operator-001/operator-001.json"), `"data"`) {
		t.Error("kept bundles were written with their objects inline")
	}
	if _, err := os.Stat(filepath.Join(cat, "operator-001", "objects", "operator-001.v1.0.3")); !os.IsNotExist(err) {
		t.Errorf("the removed bundle's emptied objects directory is still there: %v", err)
	}
	mustRun(t, "validate", cat)
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-qm", "rm")

	mustRun(t, "rm", cat, "--package", "operator-000", "--in-place")
	want = nil
	for _, f := range strings.Fields(gitOutput(t, repo, "ls-files", "unpacked/operator-000")) {
		if !strings.HasSuffix(f, ".indexignore") {
			want = append(want, " D "+f)
		}
	}
	wantStatus(t, "rm --package", repo, want...)
	mustRun(t, "validate", cat)
}

// canonical is the catalog at dir written as one stream in opm's order: two catalogs that hold
// the same blobs, however laid out, give the same text.
func canonical(t *testing.T, dir string) string {
	t.Helper()
	c, err := fbc.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := fbc.Write(&b, c, fbc.JSON); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestInPlaceAgreesWithOutputDir: whatever the edit, the catalog --in-place leaves holds the blobs
// that --output-dir writes, and every file the edit does not concern is byte for byte as it was.
func TestInPlaceAgreesWithOutputDir(t *testing.T) {
	_, cat := communityRepo(t)
	blob := filepath.Join(t.TempDir(), "bundle.json")
	bundles := pieces(t, filepath.Join(cat, "operator-002", "bundles.yaml"))
	writeFile(t, blob, strings.ReplaceAll(string(bundles.Pieces[len(bundles.Pieces)-1].Blob.Data), "1.0.3", "1.0.4"))
	for _, tc := range []struct {
		pkg  string // the package directory the edit may change
		edit []string
	}{
		{"operator-000", []string{"deprecate", "--package", "operator-000", "--message", "m"}},
		{"operator-002", []string{"deprecate", "--package", "operator-002", "--channel", "stable", "--message", "m"}},
		{"operator-001", []string{"deprecate", "--package", "operator-001", "--bundle", "operator-001.v1.0.1", "--message", "m"}},
		{"operator-000", []string{"rm", "operator-000.v1.0.1"}},
		{"operator-002", []string{"rm", "operator-002.v1.0.0", "operator-002.v1.0.2"}},
		{"operator-002", []string{"rm", "--package", "operator-002", "--channel", "candidate"}},
		{"operator-002", []string{"rm", "--package", "operator-002"}},
		{"operator-002", []string{"add", blob, "--channel", "stable"}},
		{"operator-002", []string{"add", blob, "--channel", "fast", "--default-channel", "fast"}},
		{"operator-001", []string{"graph-rebuild", "--package", "operator-001", "--mode", "semver"}},
		{"operator-002", []string{"graph-rebuild", "--package", "operator-002", "--mode", "semver-skippatch"}},
	} {
		edit := tc.edit
		name := strings.Join(edit, " ")
		tmp := t.TempDir()
		args := func(dir string) []string {
			return slices.Concat(edit[:1], []string{dir}, edit[1:])
		}
		code, _, errs := runCLI(t, append(args(cat), "--output-dir", filepath.Join(tmp, "out"))...)
		if code != 0 {
			t.Errorf("%s --output-dir: exit %d\n%s", name, code, errs)
			continue
		}
		work := filepath.Join(tmp, "work")
		copyDir(t, cat, work)
		code, _, errs = runCLI(t, append(args(work), "--in-place")...)
		if code != 0 {
			t.Errorf("%s --in-place: exit %d\n%s", name, code, errs)
			continue
		}
		if canonical(t, work) != canonical(t, filepath.Join(tmp, "out")) {
			t.Errorf("%s: --in-place and --output-dir give different catalogs", name)
		}
		err := filepath.WalkDir(cat, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(cat, p)
			after, rerr := os.ReadFile(filepath.Join(work, rel))
			if strings.HasPrefix(filepath.ToSlash(rel), tc.pkg+"/") {
				return nil
			}
			if rerr != nil || string(after) != readText(t, p) {
				t.Errorf("%s: %s, of no package the edit concerns, changed (%v)", name, rel, rerr)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestInPlaceHandWrittenYAML: a hand-written YAML file keeps its comments, its flow mappings and
// the key order of its blobs; a changed blob keeps its "---" line and comments, a new bundle
// takes the key order of the bundle before it.
func TestInPlaceHandWrittenYAML(t *testing.T) {
	cat := t.TempDir()
	file := filepath.Join(cat, "p", "catalog.yaml")
	writeFile(t, file, `--- {schema: olm.package, name: p, defaultChannel: s}
--- # the channel
schema: olm.channel
package: p
name: s
entries:
- name: p.v1
# more to come
---
schema: olm.bundle
package: p
name: p.v1
image: x/p:v1
properties:
- type: olm.package
  value: {packageName: p, version: 1.0.0}
`)
	blob := filepath.Join(t.TempDir(), "v2.json")
	writeFile(t, blob, `{"schema":"olm.bundle","package":"p","name":"p.v2","image":"x/p:v2","properties":[{"type":"olm.package","value":{"packageName":"p","version":"2.0.0"}}]}`)
	mustRun(t, "deprecate", cat, "--package", "p", "--channel", "s", "--message", "m", "--in-place")
	mustRun(t, "add", cat, blob, "--channel", "s", "--in-place")
	want := `--- {schema: olm.package, name: p, defaultChannel: s}
--- # the channel
schema: olm.channel
package: p
name: s
entries:
- name: p.v1
- name: p.v2
  replaces: p.v1
# more to come
---
schema: olm.bundle
package: p
name: p.v1
image: x/p:v1
properties:
- type: olm.package
  value: {packageName: p, version: 1.0.0}
---
schema: olm.bundle
package: p
name: p.v2
image: x/p:v2
properties:
- type: olm.package
  value:
    packageName: p
    version: 2.0.0
---
entries:
- message: m
  reference:
    name: s
    schema: olm.channel
package: p
schema: olm.deprecations
`
	if got := readText(t, file); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
