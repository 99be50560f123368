//go:build unix

package fbcbackend

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/olmcat/olmcat/fixtures/generate"
)

// Issue 27.1: nothing under --cache-dir is followed, blocked on or read unbounded. A link, FIFO,
// device or directory where the cache's directory or one of its files belongs is a damaged cache:
// refused with EnforceIntegrity (nothing changed, nothing read through it), rebuilt without it
// (the link itself removed, what it names untouched).
func TestCacheLinksFIFOsAndDevicesAreNeverFollowed(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	// victim is a valid cache of the very same catalog elsewhere: a link to it would verify.
	victim := t.TempDir()
	openCached(t, root, victim).Close()
	victimSub := filepath.Join(victim, cacheSubdir)

	mkfifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	replace := func(t *testing.T, p string, with func(string)) {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
		with(p)
	}
	symlink := func(target string) func(string) {
		return func(p string) {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, cache string)
		says   string
	}{
		{"cache directory linked to a valid cache", func(t *testing.T, cache string) {
			replace(t, filepath.Join(cache, cacheSubdir), symlink(victimSub))
		}, "olmcat-serve-v1 is a symbolic link"},
		{"cache directory a FIFO", func(t *testing.T, cache string) {
			replace(t, filepath.Join(cache, cacheSubdir), func(p string) { mkfifo(t, p) })
		}, "olmcat-serve-v1 is a named pipe (FIFO), not the directory"},
		{"index linked to a valid index", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, indexFile), symlink(filepath.Join(victimSub, indexFile)))
		}, "index.gob is a symbolic link"},
		{"index linked to /dev/zero", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, indexFile), symlink("/dev/zero"))
		}, "index.gob is a symbolic link"},
		{"index a FIFO", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, indexFile), func(p string) { mkfifo(t, p) })
		}, "index.gob is a named pipe (FIFO)"},
		{"index a directory", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, indexFile), func(p string) { os.Mkdir(p, 0o755) })
		}, "index.gob is a directory"},
		{"index larger than any index", func(t *testing.T, cache string) {
			if err := os.Truncate(cacheFile(cache, indexFile), maxIndexFileSize+1); err != nil {
				t.Skipf("a sparse file of 1 GiB: %v", err)
			}
		}, "more than the"},
		{"bodies linked to /dev/zero", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, bodiesFile), symlink("/dev/zero"))
		}, "bodies.bin is a symbolic link"},
		{"bodies a FIFO", func(t *testing.T, cache string) {
			replace(t, cacheFile(cache, bodiesFile), func(p string) { mkfifo(t, p) })
		}, "bodies.bin is a named pipe (FIFO)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			openCached(t, root, cache).Close()
			tc.tamper(t, cache)
			victimBefore := treeState(t, victim)

			before := treeState(t, cache)
			b, err := openWithin(t, root, Options{CacheDir: cache, EnforceIntegrity: true})
			var ce *CacheError
			if err == nil {
				b.Close()
				t.Fatal("served with EnforceIntegrity")
			} else if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "--cache-only") {
				t.Errorf("EnforceIntegrity: %v; want a *CacheError saying %q and how to rebuild", err, tc.says)
			}
			if after := treeState(t, cache); !cmp.Equal(before, after) {
				t.Errorf("EnforceIntegrity changed the cache directory:\n%s", cmp.Diff(before, after))
			}

			b, err = openWithin(t, root, Options{CacheDir: cache})
			if err != nil {
				t.Fatalf("rebuilding: %v", err)
			}
			defer b.Close()
			if b.CacheUse() != CacheBuilt {
				t.Errorf("cache use %v, want rebuilt", b.CacheUse())
			}
			if _, err := b.GetBundleForChannel(context.Background(), generate.PackageName(0), "stable"); err != nil {
				t.Errorf("serving the rebuilt cache: %v", err)
			}
			for _, p := range []string{filepath.Join(cache, cacheSubdir), cacheFile(cache, indexFile), cacheFile(cache, bodiesFile)} {
				st, err := os.Lstat(p)
				if err != nil || !(st.IsDir() || st.Mode().IsRegular()) {
					t.Errorf("after the rebuild %s is %v (%v), want what olmcat wrote", p, st, err)
				}
			}
			if after := treeState(t, victim); !cmp.Equal(victimBefore, after) {
				t.Errorf("the directory a link named was changed:\n%s", cmp.Diff(victimBefore, after))
			}
		})
	}
}

// A link where the previous cache is moved aside (olmcat-serve-v1.old) is removed, never what it
// names.
func TestCacheRebuildRemovesLinksNotTheirTargets(t *testing.T) {
	root := writeCatalog(t, generate.Small)
	victim := t.TempDir()
	if err := os.WriteFile(filepath.Join(victim, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(cache, cacheSubdir+".old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(cache, cacheSubdir)); err != nil {
		t.Fatal(err)
	}
	b, err := openWithin(t, root, Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	b.Close()
	if data, err := os.ReadFile(filepath.Join(victim, "keep")); err != nil || string(data) != "x" {
		t.Errorf("the linked directory's file: %q, %v", data, err)
	}
	if left, _ := os.ReadDir(victim); len(left) != 1 {
		t.Errorf("the linked directory holds %d entries, want its one file", len(left))
	}
	if _, err := os.Lstat(filepath.Join(cache, cacheSubdir+".old")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the .old link: %v, want removed", err)
	}
}

// openWithin is Open that fails the test, instead of hanging it, when it blocks (on a FIFO).
func openWithin(t *testing.T, root string, o Options) (*Backend, error) {
	t.Helper()
	type opened struct {
		b   *Backend
		err error
	}
	done := make(chan opened, 1)
	go func() {
		b, err := Open(context.Background(), Dir(root), o)
		done <- opened{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-time.After(time.Minute):
		t.Fatal("Open blocked for a minute")
		return nil, nil
	}
}
