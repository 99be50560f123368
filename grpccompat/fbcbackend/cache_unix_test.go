//go:build unix

package fbcbackend

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/olmcat/olmcat/fixtures/generate"
)

func TestCacheIsReusedAndWrittenReadableByAll(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	root := writeCatalog(t, generate.Small)
	cache := t.TempDir()
	openCached(t, root, cache)
	for _, p := range []string{filepath.Join(cache, cacheSubdir), cacheFile(cache, indexFile), cacheFile(cache, bodiesFile)} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o044 != 0o044 {
			t.Errorf("%s has mode %v: other users (the serving uid in an image) could not read it", p, st.Mode().Perm())
		}
	}
	before, _ := os.Stat(cacheFile(cache, indexFile))
	openCached(t, root, cache)
	after, _ := os.Stat(cacheFile(cache, indexFile))
	if !before.ModTime().Equal(after.ModTime()) || !os.SameFile(before, after) {
		t.Error("a cache that matches its catalog was rebuilt")
	}
}
