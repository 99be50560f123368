package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// withTemplateRenderer renders templates with the test stand-in for the test's duration, unless
// fbc/template's renderer is wired in.
func withTemplateRenderer(t *testing.T) {
	t.Helper()
	if renderTemplate != nil {
		return
	}
	old := renderTemplate
	renderTemplate = imagetest.RenderBasicTemplate
	t.Cleanup(func() { renderTemplate = old })
}

// templateRepo commits operators/cat-facts-operator/catalog-templates/v4.18.yaml, the corpus's
// basic template without its last bundle, then adds the bundle in the work tree: the review
// case of a pull request that publishes a bundle.
func templateRepo(t *testing.T) (reg *imagetest.CountingRegistry, file string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	caseDir := filepath.Join("..", "..", "..", "shared", "conformance", "templates", "render", "basic-cat-facts-operator")
	data, err := os.ReadFile(filepath.Join(caseDir, "template.yaml"))
	if err != nil {
		t.Skipf("template corpus not found: %v", err)
	}
	reg = imagetest.NewCountingRegistry(t)
	imagetest.PushCorpusImages(t, reg.Host, caseDir)
	reg.Reset()
	newer := strings.ReplaceAll(string(data), imagetest.CorpusHost+"/", reg.Host+"/")
	older := strings.Replace(newer, "  - name: cat-facts-operator.v1.1.2\n    replaces: cat-facts-operator.v1.1.1\n", "", 1)
	older = strings.Replace(older, "- schema: olm.bundle\n  image: "+reg.Host+"/cat-facts-operator-bundle:1.1.2\n", "", 1)
	if older == newer || strings.Contains(older, "1.1.2") {
		t.Fatal("the corpus template changed: cannot remove bundle 1.1.2")
	}
	dir := t.TempDir()
	file = filepath.Join(dir, "operators", "cat-facts-operator", "catalog-templates", "v4.18.yaml")
	writeFile(t, file, older)
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "template")
	writeFile(t, file, newer)
	return reg, file
}

func TestDiffReviewsATemplateChange(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	cache := t.TempDir()
	for run := range 2 {
		reg.Reset()
		code, out, errs := runCLI(t, "diff", "git:HEAD:"+file, file, "-o", "markdown", "--cache-dir", cache)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s", run, code, errs)
		}
		if !strings.Contains(out, "cat-facts-operator.v1.1.2") || !strings.Contains(out, "(git/template, 1 package") {
			t.Errorf("run %d: the diff does not show the new bundle, or that it compared templates:\n%s", run, out)
		}
		// The old side's 3 bundles are the new side's too: each of the 4 is pulled (or read from
		// the cache) once.
		if n := reg.Count("GET", "manifests"); run == 0 && n != 4 {
			t.Errorf("cold run: %d manifest GETs for 4 bundle images", n)
		}
		if n := reg.Count("GET", "blobs") + reg.Count("GET", "manifests"); run == 1 && n != 0 {
			t.Errorf("warm run: %d GETs, want none", n)
		}
		want := []string{"olmcat: 3 bundle images: 3 pulled\n", "olmcat: 4 bundle images: 1 pulled, 3 already rendered for another input\n"}
		if run == 1 {
			want = []string{"olmcat: 3 bundle images: 3 from the cache\n", "olmcat: 4 bundle images: 1 from the cache, 3 already rendered for another input\n"}
		}
		for _, w := range want {
			if !strings.Contains(errs, w) {
				t.Errorf("run %d: stderr does not say %q:\n%s", run, w, errs)
			}
		}
	}
}

func TestTemplateCommandsTakeBundlesFromACatalog(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	// The published catalog: the template rendered once, as an FBC file.
	published := filepath.Join(t.TempDir(), "catalog.json")
	writeFile(t, published, mustRun(t, "render", file, "-o", "json"))
	reg.Reset()
	out := t.TempDir()
	for _, args := range [][]string{
		{"validate", file},
		{"graph", file, "-o", "mermaid"},
		{"inspect", "packages", file},
		{"compat", file, published},
		{"migrate", file, filepath.Join(out, "index.db"), "--to", "sqlite"},
		{"serve", file, "--cache-dir", filepath.Join(out, "serve-cache"), "--cache-only"},
	} {
		code, _, errs := runCLI(t, append(args, "--bundles-from", published)...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, errs)
		}
		if !strings.Contains(errs, "4 from "+published) {
			t.Errorf("%v: stderr %q", args, errs)
		}
	}
	if n := len(reg.PerPath()); n != 0 {
		t.Errorf("%d registry requests, want none: %v", n, reg.PerPath())
	}
}

func TestTemplatePullErrorExits2(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, strings.Replace(string(data), "cat-facts-operator-bundle:1.1.2", "cat-facts-operator-bundle:9.9.9", 1))
	code, _, errs := runCLI(t, "validate", file)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	for _, part := range []string{"bundle images could not be read: 1 image: " + reg.Host + "/cat-facts-operator-bundle:9.9.9 (" + reg.Host + ": ", "not found", "--bundles-from CATALOG)"} {
		if !strings.Contains(errs, part) {
			t.Errorf("stderr does not say %q:\n%s", part, errs)
		}
	}
	// The cache is never written over an input.
	code, _, errs = runCLI(t, "validate", file, "--cache-dir", file)
	if code != 2 || !strings.Contains(errs, "it is the input") {
		t.Errorf("cache over the input: exit %d\n%s", code, errs)
	}
}

// An editing command never writes a rendered catalog over the template it was rendered from.
func TestInPlaceRefusesATemplate(t *testing.T) {
	withTemplateRenderer(t)
	_, file := templateRepo(t)
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "rm", file, "cat-facts-operator.v1.1.2", "--in-place")
	if code != 2 || !strings.Contains(errs, "--in-place would replace the catalog template") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("the template was changed")
	}
	out := filepath.Join(t.TempDir(), "edited")
	if code, _, errs := runCLI(t, "rm", file, "cat-facts-operator.v1.1.2", "--output-dir", out); code != 0 {
		t.Errorf("--output-dir: exit %d\n%s", code, errs)
	}
}

// A problem of a rendered template is reported at the line of the template entry it came from,
// the line a maintainer edits, not in the rendered stream.
func TestTemplateProblemsAreLocatedInTheTemplate(t *testing.T) {
	withTemplateRenderer(t)
	_, file := templateRepo(t)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	last := "  - name: cat-facts-operator.v1.1.2\n    replaces: cat-facts-operator.v1.1.1\n"
	broken := strings.Replace(string(data), last, last+"  - name: cat-facts-operator.v9.9.9\n    replaces: cat-facts-operator.v1.1.2\n", 1)
	if broken == string(data) {
		t.Fatal("the corpus template changed: cannot add a channel entry")
	}
	writeFile(t, file, broken)
	channelLine := 0
	for i, l := range strings.Split(broken, "\n") {
		if l == "- schema: olm.channel" {
			channelLine = i + 1
		}
	}
	want := fmt.Sprintf("%s:%d", file, channelLine)
	// validate fails; diff reports the problem the change introduces, located.
	for _, args := range [][]string{{"validate", file}, {"diff", "git:HEAD:" + file, file, "-o", "json"}} {
		code, out, errs := runCLI(t, args...)
		if code == 0 && args[0] == "validate" || code == 2 {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errs)
		}
		if !strings.Contains(out+errs, want) || !strings.Contains(out+errs, "cat-facts-operator.v9.9.9") {
			t.Errorf("%v: the problem is not reported at %s:\n%s%s", args, want, out, errs)
		}
		if strings.Contains(out+errs, "(rendered)") {
			t.Errorf("%v: a problem is located in the rendered stream:\n%s%s", args, out, errs)
		}
	}
}

// --pull-parallelism and --cache-max-age are taken by every command that renders templates and
// checked before anything runs; a run with the cache removes the entries no run used for the age.
func TestTemplatePullAndCacheFlags(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	for _, args := range [][]string{
		{"validate", file, "--pull-parallelism", "0"},
		{"diff", file, file, "--pull-parallelism", "many"},
		{"render-template", file, "--pull-parallelism", "-1"},
		{"validate", file, "--cache-max-age", "a month"},
	} {
		code, out, errs := runCLI(t, args...)
		if code == 0 || out != "" || !strings.Contains(errs, "invalid argument") {
			t.Errorf("%v: exit %d, stdout %q\n%s", args, code, out, errs)
		}
	}
	if len(reg.PerPath()) != 0 {
		t.Errorf("a refused command reached the registry: %v", reg.PerPath())
	}
	cache := t.TempDir()
	if code, _, errs := runCLI(t, "validate", file, "--pull-parallelism", "1", "--cache-dir", cache); code != 0 {
		t.Fatalf("--pull-parallelism 1: exit %d\n%s", code, errs)
	}
	entries, _ := filepath.Glob(filepath.Join(cache, "bundles", "sha256-*"))
	if len(entries) != 4 {
		t.Fatalf("%d cache entries, want 4", len(entries))
	}
	old := time.Now().Add(-3 * 24 * time.Hour)
	for _, e := range entries {
		if err := os.Chtimes(e, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// Used 3 days ago: kept by the default age, removed (and pulled again) with 2d.
	if code, _, errs := runCLI(t, "validate", file, "--cache-dir", cache); code != 0 || !strings.Contains(errs, "4 from the cache") {
		t.Errorf("default age: exit %d\n%s", code, errs)
	}
	for _, e := range entries {
		if err := os.Chtimes(e, old, old); err != nil {
			t.Fatal(err)
		}
	}
	code, _, errs := runCLI(t, "validate", file, "--cache-dir", cache, "--cache-max-age", "2d")
	if code != 0 || !strings.Contains(errs, "removed 4 entries no run used for 2d") || !strings.Contains(errs, "4 pulled") {
		t.Errorf("--cache-max-age 2d: exit %d\n%s", code, errs)
	}
}

// A directory of templates is not a catalog: every command says to name one template file.
func TestTemplateDirectoryExits2(t *testing.T) {
	withTemplateRenderer(t)
	_, file := templateRepo(t)
	dir := filepath.Dir(file)
	for _, args := range [][]string{{"validate", dir}, {"diff", dir, file}, {"graph", dir}} {
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "a directory of 1 catalog template (v4.18.yaml)") || !strings.Contains(errs, "name one template file, e.g. "+file) {
			t.Errorf("%v: exit %d, stdout %q\n%s", args, code, out, errs)
		}
	}
}

// A template is one package's catalog; the published index it is compared with holds every
// package. The diff compares the template's package only, and says which packages it left out,
// whichever side the template is on.
func TestDiffOfACatalogAndATemplateComparesTheTemplatesPackage(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	// The published catalog: fixtures/catalog's three packages and the template's, rendered.
	published := filepath.Join(t.TempDir(), "catalog")
	copyDir(t, "../../fixtures/catalog", published)
	writeFile(t, filepath.Join(published, "cat-facts-operator", "catalog.json"), mustRun(t, "render", file))
	reg.Reset()
	for _, args := range [][]string{{published, file}, {file, published}} {
		code, out, errs := runCLI(t, "diff", args[0], args[1], "--bundles-from", published, "--fail-on", "any")
		if code != 0 {
			t.Errorf("diff %v: exit %d, want 0 (the template renders its package as published)\n%s\n%s", args, code, out, errs)
		}
		if strings.Contains(out, "package-removed") || strings.Contains(out, "package-added") || !strings.Contains(out, "1 package compared") {
			t.Errorf("diff %v: compares packages the template does not hold:\n%s", args, out)
		}
		want := "olmcat: compared only the template's package cat-facts-operator (" + file + "); 3 other packages of " + published +
			" left out (operator-000, operator-001, operator-002): the template does not hold them\n"
		if !strings.Contains(errs, want) {
			t.Errorf("diff %v: stderr does not say %q:\n%s", args, want, errs)
		}
	}
	// A change of the template's package is still found.
	code, out, errs := runCLI(t, "diff", "git:HEAD:"+file, published, "--bundles-from", published, "-o", "json")
	if code != 0 || !strings.Contains(out, `"bundle-added"`) || strings.Contains(out, `"package-added"`) {
		t.Errorf("diff of the old template with the catalog: exit %d, want bundle-added and no package-added\n%s\n%s", code, out, errs)
	}
	if n := len(reg.PerPath()); n != 0 {
		t.Errorf("%d registry requests, want none (every bundle is in --bundles-from): %v", n, reg.PerPath())
	}
}

// `diff IMG TEMPLATE --bundles-from IMG` reviews a template against the published index image:
// the image is the diff's old side and the catalog the bundles are taken from, and it is pulled
// and extracted once, not once for each.
func TestDiffWithBundlesFromTheOldSideReadsTheIndexImageOnce(t *testing.T) {
	withTemplateRenderer(t)
	reg, file := templateRepo(t)
	published := filepath.Join(t.TempDir(), "catalog")
	copyDir(t, "../../fixtures/catalog", published)
	writeFile(t, filepath.Join(published, "cat-facts-operator", "catalog.json"), mustRun(t, "render", file))
	index := reg.Host + "/published/index:v4.18"
	imagetest.Push(t, index, imagetest.FBCImage(t, published))
	reg.Reset()
	code, out, errs := runCLI(t, "diff", index, file, "--bundles-from", index, "--fail-on", "any")
	if code != 0 || !strings.Contains(out, "1 package compared") {
		t.Fatalf("exit %d, want 0 (the template renders its package as published)\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "4 from "+index) {
		t.Errorf("the bundles were not taken from the index image:\n%s", errs)
	}
	blobs := 0
	for req, n := range reg.PerPath() {
		if !strings.HasPrefix(req, "GET blobs /v2/published/index/") {
			if strings.HasPrefix(req, "GET ") && !strings.Contains(req, "/published/index/") {
				t.Errorf("%s: a bundle image was pulled, want all 4 from the index image", req)
			}
			continue
		}
		blobs++
		if n != 1 {
			t.Errorf("%s: fetched %d times, want once", req, n)
		}
	}
	if blobs == 0 {
		t.Errorf("no blob of the index image was fetched: %v", reg.PerPath())
	}
	if n := reg.PerPath()["GET manifests /v2/published/index/manifests/v4.18"]; n != 1 {
		t.Errorf("the index image's manifest was fetched %d times, want once", n)
	}
}
