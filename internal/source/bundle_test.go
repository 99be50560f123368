package source_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

// A bundle reference gets the one-door wording: a missing path is "not found", a directory that
// is no bundle is a "bad bundle", a real bundle directory parses.
func TestOpenBundle(t *testing.T) {
	dir := corpusPath(t, "bundles/etcd-0.9.4/bundle")
	b, err := source.OpenBundle(context.Background(), dir, indeximage.Options{})
	if err != nil {
		t.Fatalf("a bundle directory of the corpus: %v", err)
	}
	if b.Package() != "etcd" {
		t.Errorf("package %q, want etcd", b.Package())
	}
	if source.IsBundleImage(dir) || !source.IsBundleDir(dir) {
		t.Errorf("%s taken for an image", dir)
	}

	missing := filepath.Join(t.TempDir(), "nothing")
	notBundle := t.TempDir()
	for _, c := range []struct {
		ref     string
		problem source.Problem
		want    string
	}{
		{missing, source.NotFound, missing + ": not found: no such file or directory (give a bundle directory"},
		{notBundle, source.BadBundle, notBundle + ": bad bundle: no manifests/ directory"},
	} {
		_, err := source.OpenBundle(context.Background(), c.ref, indeximage.Options{})
		var e *source.Error
		if !errors.As(err, &e) || e.Problem != c.problem || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("OpenBundle(%s): %v; want %s, starting %q", c.ref, err, c.problem, c.want)
		}
	}
}
