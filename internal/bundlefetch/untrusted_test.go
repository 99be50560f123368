package bundlefetch

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/indeximage"
)

// A template's bundle images on a loopback registry, or local paths, are refused before any
// request when Images.Untrusted does not allow them, with and without a cache; allowed, they render.
func TestUntrustedPolicyIsCheckedBeforeAnyPull(t *testing.T) {
	reg, images := corpusRegistry(t)
	refs := refsOf(images)[:3]
	refs = append(refs, "oci-layout:"+filepath.Join(t.TempDir(), "no-such-layout"))
	for _, cacheDir := range []string{"", filepath.Join(t.TempDir(), "cache")} {
		reg.Reset()
		f := newFetcher(t, Options{CacheDir: cacheDir, Images: indeximage.Options{Untrusted: &indeximage.RefPolicy{}}})
		_, err := f.RenderBundles(context.Background(), refs)
		all := template.AllImageErrors(err)
		if len(all) != len(refs) {
			t.Fatalf("cache %q: %d images refused, want %d: %v", cacheDir, len(all), len(refs), err)
		}
		for _, e := range all {
			var refused *indeximage.RefusedError
			if !errors.As(e, &refused) {
				t.Errorf("cache %q: %s: %v, want refused", cacheDir, e.Ref, e.Err)
			}
		}
		n := 0
		for _, c := range reg.PerPath() {
			n += c
		}
		if n != 0 {
			t.Errorf("cache %q: %d requests to the registry, want none", cacheDir, n)
		}
		f = newFetcher(t, Options{CacheDir: cacheDir, Images: indeximage.Options{Untrusted: &indeximage.RefPolicy{AllowHosts: []string{reg.Host}}}})
		got, err := f.RenderBundles(context.Background(), refs[:3])
		if err != nil {
			t.Fatalf("cache %q, allowed %s: %v", cacheDir, reg.Host, err)
		}
		checkRendered(t, images[:3], refs[:3], got)
		if len(reg.PerPath()) == 0 {
			t.Errorf("cache %q: allowed, the registry was not asked", cacheDir)
		}
	}
}
