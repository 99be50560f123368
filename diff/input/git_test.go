package input_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/diff"
	"github.com/olmcat/olmcat/diff/input"
	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/source"
)

const jaeger = "../../../shared/conformance/fbc/ocmirror-jaeger-product-json/catalog"

// gitRepo makes a repository whose first commit holds the jaeger catalog under catalogs/, and
// returns its work tree.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	if _, err := os.Stat(jaeger); err != nil {
		t.Skipf("conformance corpus not available (%s): %v", jaeger, err)
	}
	cat, err := fbc.Load(jaeger)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeCatalog(t, filepath.Join(dir, "catalogs", "jaeger-product", "catalog.json"), cat)
	run(t, dir, "init", "-q")
	run(t, dir, "add", ".")
	run(t, dir, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "catalog")
	return dir
}

func writeCatalog(t *testing.T, path string, cat *fbc.Catalog) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fbc.Write(f, cat, fbc.JSON); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The work tree drops the head bundle; --git HEAD sees the committed catalog as the old side.
func TestOpenGitAgainstWorkTree(t *testing.T) {
	dir := gitRepo(t)
	cat, err := fbc.Load(jaeger)
	if err != nil {
		t.Fatal(err)
	}
	const head = "jaeger-operator.v1.51.0-1"
	var bundles []fbc.Bundle
	for _, b := range cat.Bundles {
		if b.Name != head {
			bundles = append(bundles, b)
		}
	}
	cat.Bundles = bundles
	cat.Channels[0].Entries = cat.Channels[0].Entries[:len(cat.Channels[0].Entries)-1]
	writeCatalog(t, filepath.Join(dir, "catalogs", "jaeger-product", "catalog.json"), cat)

	ctx := context.Background()
	oldSide, err := input.Open(ctx, "git:HEAD:"+filepath.Join(dir, "catalogs"), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if oldSide.Format != "git/fbc" || len(oldSide.Problems) != 0 {
		t.Errorf("old side: %s %s %v", oldSide.Source, oldSide.Format, oldSide.Problems)
	}
	newSide, err := input.Open(ctx, filepath.Join(dir, "catalogs"), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := diff.Compare(oldSide, newSide)
	kinds := map[diff.Kind]int{}
	for _, f := range r.Findings {
		kinds[f.Kind]++
	}
	if kinds[diff.BundleRemoved] != 1 || kinds[diff.HeadMovedBackwards] != 1 || kinds[diff.Stranded] != 1 {
		t.Errorf("findings: %+v", r.Findings)
	}
	// The same from a subdirectory, naming one file.
	fileSide, err := input.Open(ctx, "git:HEAD:"+filepath.Join(dir, "catalogs", "jaeger-product", "catalog.json"), input.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(fileSide.Catalog.Bundles) != 6 {
		t.Errorf("file at HEAD has %d bundles, want 6", len(fileSide.Catalog.Bundles))
	}
}

func TestOpenGitErrors(t *testing.T) {
	dir := gitRepo(t)
	ctx := context.Background()
	_, err := input.Open(ctx, "git:no-such-rev:"+filepath.Join(dir, "catalogs"), input.Options{})
	if err == nil || !strings.Contains(err.Error(), `bad git revision: revision "no-such-rev" does not exist`) {
		t.Errorf("unknown revision: %v", err)
	}
	// A catalog added after the revision: the old side is empty, so everything is new.
	added := filepath.Join(dir, "more")
	if err := os.MkdirAll(added, 0o755); err != nil {
		t.Fatal(err)
	}
	oldSide, newSide, err := input.OpenGitPair(ctx, "HEAD", added, input.Options{Source: source.Options{AllowEmpty: true}})
	if err != nil || len(oldSide.Catalog.Bundles) != 0 || len(newSide.Catalog.Bundles) != 0 {
		t.Errorf("path absent at revision: %+v, %v", oldSide, err)
	}
	if _, err := input.Open(ctx, "git:HEAD:"+added, input.Options{}); err == nil || !strings.Contains(err.Error(), "not found: more did not exist at HEAD") {
		t.Errorf("path absent at revision without --allow-empty: %v", err)
	}
	if _, err := input.Open(ctx, "git:HEAD:"+t.TempDir(), input.Options{}); err == nil || !strings.Contains(err.Error(), "not inside a git work tree") {
		t.Errorf("outside a work tree: %v", err)
	}
	if _, err := input.Open(ctx, filepath.Join(dir, "nope"), input.Options{}); err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("missing input: %v", err)
	}
}
