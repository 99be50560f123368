package fbcbackend

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/grpccompat/backendtest"
)

// writeCatalog writes a generated catalog in opm's layout, <package>/catalog.json.
func writeCatalog(t testing.TB, o generate.Options) string {
	t.Helper()
	root := t.TempDir()
	for _, part := range fbc.SplitByPackage(generate.Catalog(o)) {
		dir := filepath.Join(root, part.Package)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, "catalog.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := fbc.Write(f, part.Catalog, fbc.JSON); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestBackendSuite(t *testing.T) {
	catalogs := map[string]string{
		"generated":             writeCatalog(t, generate.Small),
		"generated-csvmetadata": writeCatalog(t, generate.Options{Packages: 2, BundlesPerPackage: 5, SkipEvery: 2, Seed: 3, CSVMetadata: true}),
	}
	for _, name := range []string{"sqlite/community-5ops-replaces/migrate"} {
		if dir := filepath.Join(corpus, name); dirExists(dir) {
			catalogs[name] = dir
		}
	}
	for name, root := range catalogs {
		t.Run(name, func(t *testing.T) {
			backendtest.Run(t, func(t *testing.T) api.Backend {
				b, err := Open(context.Background(), Dir(root), Options{})
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				return b
			})
		})
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
