package bundlefetch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmcat/olmcat/internal/scratch"
)

// A run that uses the cache removes the entries no run has used for MaxAge, keeps the others and
// what is not an entry (a write in progress of another run), and touches the entries it reads, so
// that a bundle a CI job renders every day stays however old it is. What killed or racing runs
// left (a temporary entry no process holds, an entry moved aside and never removed) is removed.
func TestCacheRemovesEntriesUnusedForMaxAge(t *testing.T) {
	reg, images := corpusRegistry(t)
	images = images[:3]
	refs := refsOf(images)
	dir := t.TempDir()
	if _, err := newFetcher(t, Options{CacheDir: dir}).RenderBundles(context.Background(), refs); err != nil {
		t.Fatal(err)
	}
	entryOf := func(i int) string {
		t.Helper()
		hex := images[i].Digest[strings.Index(images[i].Digest, ":")+1:]
		matches, _ := filepath.Glob(filepath.Join(dir, cacheSubdir, "*"+hex+"*"))
		if len(matches) != 1 {
			t.Fatalf("image %s: cache entries %v", images[i].Ref, matches)
		}
		return matches[0]
	}
	unused, unused2, used := entryOf(0), entryOf(1), entryOf(2)
	usedBefore := time.Now().Add(-10 * 24 * time.Hour)
	old := time.Now().Add(-40 * 24 * time.Hour)
	temp, unlock, err := scratch.MkdirTempLocked(filepath.Join(dir, cacheSubdir), ".sha256-x-linux_amd64.tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	other := filepath.Join(dir, cacheSubdir, "README")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var left []string // by runs that were killed, or raced
	for _, name := range []string{".sha256-y-linux_amd64.tmp-2", ".sha256-z-linux_amd64.tmp-3.old"} {
		p := filepath.Join(dir, cacheSubdir, name)
		if err := os.MkdirAll(filepath.Join(p, "blobs"), 0o755); err != nil {
			t.Fatal(err)
		}
		left = append(left, p)
	}
	for _, p := range []string{unused, unused2, temp, other} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chtimes(used, usedBefore, usedBefore); err != nil {
		t.Fatal(err)
	}

	// No limit: nothing is removed.
	if _, err := newFetcher(t, Options{CacheDir: dir}).RenderBundles(context.Background(), refs[2:]); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(unused); err != nil {
		t.Fatalf("removed without MaxAge: %v", err)
	}

	var log bytes.Buffer
	f := newFetcher(t, Options{CacheDir: dir, MaxAge: 30 * 24 * time.Hour, Log: &log})
	if _, err := f.RenderBundles(context.Background(), refs[2:]); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Cached != 1 {
		t.Errorf("the entry used 10 days ago was not read from the cache: %+v", s)
	}
	for _, p := range []string{unused, unused2} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s, unused for 40 days, is still there", filepath.Base(p))
		}
	}
	for _, p := range left {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s, left by an earlier run, is still there", filepath.Base(p))
		}
	}
	for _, p := range []string{used, temp, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(p), err)
		}
	}
	if info, err := os.Stat(used); err != nil || !info.ModTime().After(usedBefore.Add(24*time.Hour)) {
		t.Errorf("the entry read was not marked as used: %v", err)
	}
	if want := "removed 2 entries no run used for 30d"; !strings.Contains(log.String(), want) {
		t.Errorf("log %q does not say %q", log.String(), want)
	}

	// A removed entry is pulled again.
	reg.Reset()
	f = newFetcher(t, Options{CacheDir: dir, MaxAge: 30 * 24 * time.Hour})
	if _, err := f.RenderBundles(context.Background(), refs[:1]); err != nil {
		t.Fatal(err)
	}
	if s := f.Stats(); s.Pulled != 1 || reg.Count("GET", "blobs") == 0 {
		t.Errorf("a pruned bundle: %+v", s)
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "0": 0, "0d": 0, "36h": 36 * time.Hour, "90m": 90 * time.Minute} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
		if got, _ := ParseAge(FormatAge(want)); want > 0 && got != want {
			t.Errorf("FormatAge(%v) does not read back", want)
		}
	}
	for _, in := range []string{"", "d", "-1d", "30", "thirty days", "1.5d", "-2h"} {
		if _, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q): no error", in)
		}
	}
}
