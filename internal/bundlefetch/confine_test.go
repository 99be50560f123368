package bundlefetch

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// tree is every path under dir with its content (directories and links as what they are).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			dest, _ := os.Readlink(p)
			out[rel] = "-> " + dest
		case d.IsDir():
			out[rel] = "dir"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s: %s changed: %q, was %q", what, p, after[p], v)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s was written", what, p)
		}
	}
}

// DIR/bundles linked to another directory (the input catalog of the command, in a shared CI
// cache) is not the cache: the link is removed, never followed, so nothing is written into the
// directory it points to nor pruned from it (not even files named as entries of the earlier
// format, which a prune removes); the cache starts anew, and says so once.
func TestCacheBundlesLinkIsRemovedNeverFollowed(t *testing.T) {
	_, images := corpusRegistry(t)
	refs := refsOf(images[:2])
	dir, victim := t.TempDir(), t.TempDir()
	for name, content := range map[string]string{
		"catalog.json":                               `{"schema":"olm.package","name":"p"}`,
		"sha256-0123-linux_amd64.json":               "an old-format entry name, in the input",
		"sha256-4567-linux_amd64/index.json":         "an entry-like directory, in the input",
		".sha256-89ab-linux_amd64.tmp-1.old/x.json":  "a swap-leftover-like directory, in the input",
		".sha256-cdef-linux_amd64.tmp-2/blobs/x.txt": "a temporary-entry-like directory, in the input",
	} {
		p := filepath.Join(victim, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-100 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(victim, "sha256-4567-linux_amd64"), old, old); err != nil {
		t.Fatal(err)
	}
	before := tree(t, victim)
	if err := os.Symlink(victim, filepath.Join(dir, cacheSubdir)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	f := newFetcher(t, Options{CacheDir: dir, MaxAge: 24 * time.Hour, Log: &log})
	got, err := f.RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	checkRendered(t, images[:2], refs, got)
	sameTree(t, "the directory the link pointed to", before, tree(t, victim))
	if fi, err := os.Lstat(filepath.Join(dir, cacheSubdir)); err != nil || !fi.IsDir() {
		t.Fatalf("the cache is not a directory again: %v", err)
	}
	if n := strings.Count(log.String(), "was a symbolic link, not a directory: removed, never followed"); n != 1 {
		t.Errorf("said %d times, want once: %q", n, log.String())
	}
	f = newFetcher(t, Options{CacheDir: dir})
	if _, err := f.RenderBundles(context.Background(), refs); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Cached != 2 {
		t.Errorf("the cache made anew is not used: %+v", s)
	}
}

// Runs sharing a cache at once (8 processes of a CI matrix, here 8 Fetchers) each render every
// bundle right, say nothing of the cache (an entry another run wrote is not damaged, a write that
// lost the race is no failure), and leave nothing but entries.
func TestConcurrentRunsShareACache(t *testing.T) {
	_, images := corpusRegistry(t)
	refs := refsOf(images)
	dir := t.TempDir()
	const runs = 8
	logs := make([]bytes.Buffer, runs)
	var wg sync.WaitGroup
	for i := range runs {
		f := newFetcher(t, Options{CacheDir: dir, Log: &logs[i], Parallel: 4})
		wg.Go(func() {
			for range 2 { // cold, then warm while the others may still write
				got, err := f.RenderBundles(context.Background(), refs)
				if err != nil {
					t.Error(err)
					return
				}
				checkRendered(t, images, refs, got)
				f = newFetcher(t, Options{CacheDir: dir, Log: &logs[i], Parallel: 4})
			}
		})
	}
	wg.Wait()
	for i := range logs {
		if s := logs[i].String(); strings.Contains(s, "cannot write") || strings.Contains(s, "does not verify") {
			t.Errorf("run %d: %s", i, s)
		}
	}
	list, err := os.ReadDir(filepath.Join(dir, cacheSubdir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if !isEntryName(e.Name()) {
			t.Errorf("left in the cache: %s", e.Name())
		}
	}
}
